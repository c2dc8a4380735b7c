"""The ranges of Kafka's fixed-width integer types (INT32, INT64 in the protocol guide)."""

INT32_MAX = 2**31 - 1
INT32_MIN = -(2**31)
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
