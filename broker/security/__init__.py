"""Listener security: TLS, SASL authentication and the settings they read."""
