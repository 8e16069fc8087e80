"""Building the query and passage encoders from the config's `init` (a registry of kinds)."""
import os

from pytrain.bert_model import build_random
from pytrain.checkpoint import load_encoder, read_bert_config_near, read_state_dict
from pytrain.errors import InputError
from pytrain.model_configs import TINY_BERT, BertConfig


def _bert_config(init, near_path):
    raw = init.get("bert_config")
    if raw is None and near_path is not None:
        raw = read_bert_config_near(near_path)
        if raw is None:
            raise InputError("no bert_config in init and no config.json beside the checkpoint",
                                     file=near_path, field="init.bert_config",
                                     fix="add init.bert_config (hidden_size, num_hidden_layers, ...) or the HF config.json")
    try:
        return BertConfig.from_dict(raw if raw is not None else TINY_BERT)
    except (TypeError, ValueError) as e:
        raise InputError(str(e), field="init.bert_config") from e


def _random(init, cfg, log):
    c = _bert_config(init, None)
    log(f"init: random BERT {c.num_hidden_layers}x{c.hidden_size} (heads {c.num_attention_heads}) from seed {cfg['seed']}")
    # Both encoders start from the same weights, as DPR starts both from one pre-trained BERT.
    return build_random(c, cfg["seed"]), build_random(c, cfg["seed"]), []


def _from_files(q_path, p_path, init, cfg, log, q_prefix=None, p_prefix=None):
    c = _bert_config(init, q_path)
    q, p = build_random(c, cfg["seed"]), build_random(c, cfg["seed"])
    reports = []
    for model, path, role, prefix in ((q, q_path, "query", q_prefix), (p, p_path, "passage", p_prefix)):
        state = read_state_dict(path, allow_pickle=cfg["allow_pickle"])
        rep = load_encoder(model, state, role, prefix=prefix, source=path)
        log(f"loaded {rep['loaded']} tensors for the {role} encoder from {os.path.basename(path)} "
            f"(prefix '{rep['prefix']}', ignored {len(rep['ignored'])})")
        if rep["unexpected"]:
            log(f"WARNING: {len(rep['unexpected'])} checkpoint tensors under prefix '{rep['prefix']}' were NOT used: "
                + ", ".join(rep["unexpected"][:10]))
        reports.append(rep)
    return q, p, reports


def _checkpoint(init, cfg, log):
    return _from_files(init["query_path"], init["passage_path"], init, cfg, log,
                       init.get("query_prefix"), init.get("passage_prefix"))


def _hf_dpr(init, cfg, log):
    return _from_files(init["question_encoder_path"], init["ctx_encoder_path"], init, cfg, log,
                       "question_encoder.bert_model.", "ctx_encoder.bert_model.")


INIT_BUILDERS = {"random": _random, "checkpoint": _checkpoint, "hf-dpr": _hf_dpr}


def build_encoders(cfg, log):
    init = cfg["init"]
    return INIT_BUILDERS[init["kind"]](init, cfg, log)
