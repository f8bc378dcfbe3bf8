"""Backend adapters ("lines"): one module per backend, all behind ``base.Adapter``."""
