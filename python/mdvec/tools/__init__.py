"""mdvec's command-line tools (``python -m mdvec COMMAND``): ``cli`` parses the command line and hands each
command to its module here (``contract``, ``bench``, ``calibrate``, ``train``, ``evaluate``, ``render``,
``config``). They use the core and the adapters; nothing below them imports them."""
