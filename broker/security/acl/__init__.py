"""ACLs: what they are (`model`), where they are kept (`store`), how a request is judged
(`authorizer`, Kafka's StandardAuthorizer)."""
