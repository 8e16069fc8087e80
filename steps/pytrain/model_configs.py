"""The model configurations the programs build: generated from steps/pytrain/model-configs.ts by scripts/gen-python.ts; do not edit."""

import dataclasses

from pytrain.hf_config import HfConfig


@dataclasses.dataclass
class BertConfig(HfConfig):
    """A BERT encoder (Hugging Face BertConfig's fields the compact BERT of pytrain/bert_model.py implements)."""

    vocab_size: int = 30522  # rows of the word embedding (a random init takes it from the vocabulary when absent)
    hidden_size: int = 768  # width of every layer (a multiple of num_attention_heads)
    num_hidden_layers: int = 12  # transformer layers
    num_attention_heads: int = 12  # attention heads per layer
    intermediate_size: int = 3072  # width of the feed-forward layer
    max_position_embeddings: int = 512  # longest sequence (rows of the position embedding)
    type_vocab_size: int = 2  # token types (title 0 / text 1)
    layer_norm_eps: float = 1e-12  # LayerNorm epsilon
    hidden_dropout_prob: float = 0.1  # dropout on embeddings and layer outputs
    attention_probs_dropout_prob: float = 0.1  # dropout on attention probabilities
    initializer_range: float = 0.02  # standard deviation of a random init's weights
    add_pooling_layer: bool = False  # a pooler, only so that plain BERT checkpoints load without leftovers (DPR's vector is the [CLS] state)

    REQUIRES = {
        "hidden_act": "gelu",
        "position_embedding_type": "absolute",
    }
    MULTIPLE_OF = [
        ["hidden_size", "num_attention_heads"],
    ]
    DEFAULT_FROM = {}
    HF = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "pad_token_id": 0,
        "architectures": ["BertModel"],
        "position_embedding_type": "absolute",
    }


@dataclasses.dataclass
class T5Config(HfConfig):
    """A T5 v1.0 encoder-decoder (Hugging Face T5Config's fields the compact T5 of qa/fid/t5_model.py implements)."""

    vocab_size: int = 32128  # rows of the shared embedding (from the SentencePiece vocabulary)
    d_model: int = 768  # width of every layer
    d_kv: int = 64  # width of one attention head
    d_ff: int = 3072  # width of the feed-forward layer
    num_layers: int = 12  # encoder blocks
    num_decoder_layers: int = 12  # decoder blocks (default: num_layers)
    num_heads: int = 12  # attention heads per block
    relative_attention_num_buckets: int = 32  # relative position buckets
    relative_attention_max_distance: int = 128  # distance of the last logarithmic bucket
    dropout_rate: float = 0.1  # dropout everywhere
    layer_norm_epsilon: float = 0.000001  # RMS norm epsilon
    initializer_factor: float = 1.0  # scale of a random init (Mesh TensorFlow's)
    pad_token_id: int = 0  # padding id
    eos_token_id: int = 1  # end-of-sequence id
    decoder_start_token_id: int = 0  # the decoder's first input
    tie_word_embeddings: bool = True  # the LM head is the shared embedding (scaled by d_model^-0.5)

    REQUIRES = {
        "feed_forward_proj": "relu",
    }
    MULTIPLE_OF = []
    DEFAULT_FROM = {
        "num_decoder_layers": "num_layers",
    }
    HF = {
        "model_type": "t5",
        "feed_forward_proj": "relu",
        "architectures": ["T5ForConditionalGeneration"],
    }


# The mini benchmark's θ0 default (the vocabulary size comes from the tokens).
TINY_BERT = {
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 512,
}
