"""What the generated model configurations (model_configs.py) share: reading a Hugging Face
config.json, whose unknown fields are ignored, and writing one back with Hugging Face's own
fields beside the dataclass's. The class attributes come from steps/pytrain/model-configs.ts:
REQUIRES (fields the model implements with one value only), MULTIPLE_OF, DEFAULT_FROM, HF."""
import dataclasses


class HfConfig:
    REQUIRES, MULTIPLE_OF, DEFAULT_FROM, HF = {}, [], {}, {}

    @classmethod
    def from_dict(cls, d):
        """The known fields of `d` (others ignored); ValueError for what the model cannot be."""
        for key, value in cls.REQUIRES.items():
            if d.get(key, value) != value:
                raise ValueError(f"{key} {d.get(key)!r} is not supported: only {value!r} is implemented")
        names = {f.name for f in dataclasses.fields(cls)}
        cfg = cls(**{k: v for k, v in d.items() if k in names})
        for field, source in cls.DEFAULT_FROM.items():
            if d.get(field) is None:
                setattr(cfg, field, getattr(cfg, source))
        for a, b in cls.MULTIPLE_OF:
            if getattr(cfg, a) % getattr(cfg, b) != 0:
                raise ValueError(f"{a} {getattr(cfg, a)} is not a multiple of {b} {getattr(cfg, b)}")
        return cfg

    def to_hf_dict(self):
        return {**dataclasses.asdict(self), **{k: (list(v) if isinstance(v, list) else v) for k, v in self.HF.items()}}
