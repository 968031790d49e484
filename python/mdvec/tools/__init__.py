"""mdvec's command-line tools (``python -m mdvec COMMAND``), one module each."""
