"""Language model providers and the model catalogue."""
