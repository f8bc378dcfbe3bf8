"""Policy as config: the YAML schema, the built-in policy and the loader."""

from tamis.policy.loader import LoadedConfig, load_config
from tamis.policy.schema import Config, LineConfig

__all__ = ["Config", "LineConfig", "LoadedConfig", "load_config"]
