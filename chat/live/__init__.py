"""A turn as it streams: the WebSocket consumer (`consumers`, `routing`), server-sent
events (`sse`), and every tab of an instance following it (`followers`)."""
