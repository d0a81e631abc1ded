// Placeholder translation unit until the compiler lands.
