"""The DPR trainer's config: checked against its schema (config_schema.py, generated from
steps/training/config-schema.ts) by the package's one validator, with `init` from a flag."""
import os

from pytrain.config import load_config as load_checked
from pytrain.errors import InputError
from pytrain.model_configs import TINY_BERT
from training.dpr.config_schema import SCHEMA


def init_flag(init_from=None, init_hf_dpr=None, path=None):
    """(init, flag) from --init-from (an earlier run's --out: both encoders) or --init-hf-dpr (an HF
    DPR checkpoint dir holding question_encoder/ and ctx_encoder/); they exclude each other."""
    if init_from is not None and init_hf_dpr is not None:
        raise InputError("both --init-from and --init-hf-dpr are given", path, "init",
                         "pass one of them: --init-from DIR (an earlier run's --out) or --init-hf-dpr DIR (HF DPR checkpoint)")
    if init_from is not None:
        return {"kind": "checkpoint", "query_path": os.path.abspath(os.path.join(init_from, "query_encoder.safetensors")),
                "passage_path": os.path.abspath(os.path.join(init_from, "passage_encoder.safetensors"))}, "--init-from"
    if init_hf_dpr is not None:
        return {"kind": "hf-dpr", "question_encoder_path": os.path.abspath(os.path.join(init_hf_dpr, "question_encoder")),
                "ctx_encoder_path": os.path.abspath(os.path.join(init_hf_dpr, "ctx_encoder"))}, "--init-hf-dpr"
    return None, None


def with_vocab_size(cfg, vocab_size):
    """A random init without bert_config.vocab_size takes the tokenizer's (the vocabulary decides it)."""
    init = cfg["init"]
    if vocab_size is None or init["kind"] != "random":
        return cfg
    bert = dict(init.get("bert_config") or TINY_BERT)
    bert.setdefault("vocab_size", vocab_size)
    return {**cfg, "init": {**init, "bert_config": bert}}


def load_config(path, init_from=None, vocab_size=None, init_hf_dpr=None, schema=SCHEMA):
    """Reads and validates the config (unknown keys are errors); `init_from`/`init_hf_dpr` replace
    `init` (init_flag), `vocab_size` fills a random init's missing `bert_config.vocab_size`."""
    init, flag = init_flag(init_from, init_hf_dpr, path)
    return with_vocab_size(load_checked(path, schema, init, flag), vocab_size)
