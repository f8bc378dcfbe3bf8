"""The pipeline stages, one module each: fanout -> merge -> filter -> rank -> (extract)."""
