# Sourced by scripts: --input-shape flags for the shared models with symbolic input dims
# (MANIFEST.md's concrete test shapes). Usage: shape_args=($(model_shape_args NAME))
model_shape_args() {
  case $1 in
    mobilenetv2) echo "--input-shape input=1,3,224,224" ;;
    ppocr_det) echo "--input-shape x=1,3,320,320" ;;
    ppocr_cls) echo "--input-shape x=1,3,48,192" ;;
    ppocr_rec) echo "--input-shape x=1,3,48,320" ;;
    super_resolution) echo "--input-shape input=1,1,224,224" ;;
  esac
}
