"""One module per CLI verb; each is a thin shell over the library."""
