#!/usr/bin/env python3
"""PyTorch baselines for the Kiln GPU comparison (docs/gpu.md): torchvision mobilenet_v2,
squeezenet1_1 and resnet18 -- the architectures of the shared mobilenetv2, squeezenet and
resnet18_rw models -- batch 1, fp32, in eager mode and as CUDA-graph replays. Latency is host
wall time per inference with a device synchronisation, median over --runs after --warmup, the
input already on the GPU ("eager"), and also with the input copied in and the output copied
out per run ("eager+io", what a Kiln Session::Run includes). Prints one JSON object per model.
"""
import argparse
import json
import statistics
import time

import torch
import torchvision

MODELS = {
    "mobilenetv2": torchvision.models.mobilenet_v2,
    "squeezenet": torchvision.models.squeezenet1_1,
    "resnet18_rw": torchvision.models.resnet18,
}


def median_ms(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def measure(name, runs, warmup):
    torch.manual_seed(0)
    model = MODELS[name]().eval().cuda()
    x = torch.rand(1, 3, 224, 224, device="cuda")
    x_host = x.cpu().pin_memory()
    out = {"model": name, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "runs": runs}
    with torch.inference_mode():
        torch.backends.cudnn.allow_tf32 = True  # PyTorch's default for convolutions
        out["eager_ms"] = median_ms(lambda: model(x), runs, warmup)
        out["eager_io_ms"] = median_ms(lambda: model(x_host.cuda()).cpu(), runs, warmup)
        torch.backends.cudnn.allow_tf32 = False  # strict fp32, like Kiln's fp32 kernels
        out["eager_strict_fp32_ms"] = median_ms(lambda: model(x), runs, warmup)
        torch.backends.cudnn.allow_tf32 = True
        static_x = x.clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = model(static_x)
        out["cuda_graph_ms"] = median_ms(graph.replay, runs, warmup)
        del static_y
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args()
    for name in args.models:
        print(json.dumps(measure(name, args.runs, args.warmup)), flush=True)


if __name__ == "__main__":
    main()
