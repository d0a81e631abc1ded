// Placeholder translation unit until the model format lands.
