"""Model action dialects: UI-TARS's action space, its parser and its coordinate conventions."""
