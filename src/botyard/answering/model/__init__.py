"""The LLM answerer: the prompt within the model's context budget (`prompt`), streamed through the provider."""
