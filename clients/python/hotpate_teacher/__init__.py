"""hotpate's teacher worker for causal language models (Python + PyTorch): docs/llm-teachers.md."""
