-- The feature levels each broker supports, {name: [min, max]}, written at its registration
-- (Kafka's BrokerRegistrationRequest Features): UpdateFeatures refuses a level a live broker
-- does not support (broker/features.py). NULL: registered by a version before this column,
-- whose ranges are unknown; it is taken to support each feature up to its level finalized
-- at the update, so nothing is upgraded past what it serves until it runs this version.
ALTER TABLE brokers ADD COLUMN supported_features jsonb;
