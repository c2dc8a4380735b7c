"""SASL authentication of a connection (Kafka's SaslServerAuthenticator) and its mechanisms."""
