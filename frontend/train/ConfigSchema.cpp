// Every key loom-train knows (see Config.h): its section, default, help text and bounds. The
// parsing and checking of a configuration against it is Config.cpp's.
#include "frontend/train/Config.h"

#include <string>
#include <vector>

namespace loom::train {

const std::vector<ConfigKey> &configSchema() {
  using S = std::vector<std::string>;
  static const std::vector<ConfigKey> schema = {
      {"model.kind", std::string("gpt"),
       "the model: a GPT decoder on text, an MLP on the handwritten digits, or the Goodreads "
       "two-tower recommender", S{"gpt", "mlp", "two_tower"}},
      {"model.vocab", int64_t(256), "vocabulary size (256: byte-level tokens)", {}, 2, "gpt"},
      {"model.embed", int64_t(128), "channels C", {}, 1, "gpt"},
      {"model.layers", int64_t(2), "decoder layers", {}, 1, "gpt"},
      {"model.heads", int64_t(4), "attention heads (must divide embed)", {}, 1, "gpt"},
      {"model.seq", int64_t(64), "context length T", {}, 1, "gpt"},
      {"model.hidden", std::vector<int64_t>{128, 128}, "widths of the hidden layers", {}, 1,
       "mlp"},
      {"data.text", S{"/usr/share/games/fortunes/fortunes", "/usr/share/games/fortunes/literature",
                      "/usr/share/games/fortunes/riddles"},
       "text files the token file is prepared from (byte-level), when it does not exist", {},
       -1e300, "gpt"},
      {"data.tokens", std::string(""),
       "the token file (default: OUT/tokens.bin, prepared from data.text)", {}, -1e300, "gpt"},
      {"data.digits", std::string("/usr/local/share/loom/datasets/digits.csv.gz"),
       "the digits CSV (64 pixels and a label per line, gzipped; scripts/install_deps.sh takes "
       "it out of Debian's python3-sklearn)", {}, -1e300, "mlp"},
      {"model.embed_dim", int64_t(16), "embedding size of every table and of each tower's output",
       {}, 1, "two_tower"},
      {"model.tower_hidden", int64_t(64), "width of each tower's hidden layer", {}, 1,
       "two_tower"},
      {"model.precision", std::string("f32"),
       "the dtype the model computes in (gpt, two_tower): bf16 or f16 make the products 16-bit "
       "(the GPU's tensor cores; sums accumulate in f32) with f32 parameters and optimizer "
       "state; the GPT keeps its residual stream, layer norms, softmax and loss in f32 (as "
       "autocast), the recommender its activations in 16 bits; f16 adds a dynamic loss scale "
       "that skips steps whose gradients are not finite",
       S{"f32", "bf16", "f16"}},
      {"model.dropout", 0.0,
       "the probability that dropout zeroes an activation in training (0: none): the GPT's "
       "embeddings, attention probabilities (unless model.attention_dropout says otherwise) "
       "and each attention and MLP output before the residual sum, the MLP's and the "
       "recommender towers' hidden layers; evaluation and --generate use none",
       {}, 0, "", 1},
      {"model.attention_dropout", -1.0,
       "the probability that dropout zeroes one of the GPT's attention probabilities in "
       "training (GPT-2's attn_pdrop, computed in the attention kernels); -1: model.dropout",
       {}, -1, "gpt", 1},
      {"data.goodreads", std::string("data/goodreads-prepared"),
       "the prepared Goodreads data (loom-goodreads prepare writes it)", {}, -1e300, "two_tower"},
      {"data.shuffle_buffer", int64_t(10000),
       "rows of the training stream's shuffle buffer", {}, 1, "two_tower"},
      {"data.eval_fraction", 0.1, "the share of the data held out for evaluation", {}, 0, "", 1},
      {"data.batch", int64_t(8), "global batch (sequences or examples per step)", {}, 1},
      {"optimizer.lr", 3e-3, "peak learning rate (AdamW)", {}, 0},
      {"optimizer.end_lr", 3e-4, "learning rate at the end of the cosine decay", {}, 0},
      {"optimizer.warmup_steps", int64_t(10), "linear warm-up steps", {}, 0},
      {"optimizer.weight_decay", 0.01, "decoupled weight decay", {}, 0},
      {"optimizer.beta1", 0.9, "AdamW beta1", {}, 0, "", 1},
      {"optimizer.beta2", 0.999, "AdamW beta2", {}, 0, "", 1},
      {"optimizer.eps", 1e-8, "AdamW epsilon", {}, 0},
      {"optimizer.clip_norm", 0.0,
       "scale gradients to at most this global L2 norm before the update (0: off)", {}, 0},
      {"mesh.strategy", std::string("fsdp"),
       "how parameters and batch are split (rules: by mesh.rules)",
       S{"none", "dp", "fsdp", "tp", "fsdp_tp", "rules"}},
      {"mesh.shape", std::vector<int64_t>{4},
       "devices per mesh axis ([n]; [fsdp, tensor] for fsdp_tp); virtual CPU devices"},
      {"mesh.axes", S{}, "names of the mesh axes (strategy rules), one per mesh.shape entry"},
      {"mesh.rules", S{},
       "strategy rules: \"PATTERN = [dim, ...]\" per parameter path pattern (* within one "
       "dotted component); a dim is an axis, axes joined by +, or _; the first match wins, "
       "unmatched parameters are replicated"},
      {"mesh.batch_axes", S{}, "strategy rules: the axes the batch is split over"},
      {"mesh.keep_gathered", false,
       "gather each split parameter once per step and keep it whole for the backward, instead "
       "of gathering it again there: FSDP receives about a third fewer bytes per step and holds "
       "the whole parameters from the forward to the backward"},
      {"training.steps", int64_t(100), "train steps", {}, 1},
      {"training.epochs", 0.0,
       "if above 0: train this many passes over the training split instead of training.steps",
       {}, 0},
      {"training.micro_batches", int64_t(1),
       "gradient accumulation: each step's batch (data.batch rows) goes through the model in "
       "this many micro-batches, one after another, their gradients summed into the step's "
       "update; a step then holds one micro-batch's activations",
       {}, 1},
      {"training.remat", false,
       "GPT: recompute each layer's forward in the backward instead of keeping its activations "
       "(activation checkpointing): a step holds the layers' inputs and one layer's "
       "activations, for about a third more compute",
       {}, -1e300, "gpt"},
      {"training.seed", int64_t(0), "seed of parameters and batches", {}, 0},
      {"training.log_interval", int64_t(10), "steps between log lines (reads the loss)", {}, 1},
      {"training.log_format", std::string("progress"),
       "how steps are logged: \"progress\" (process 0: a live bar on a terminal, else a line "
       "per logged step) or \"per_rank\" (every process, as the multi-host seed: \"Rank R: "
       "epoch: e/E, batch: b/B, batch size: N, batch per host size: n\" per logged step, each "
       "epoch's average loss, \"Rank R: training completed.\")",
       S{"progress", "per_rank"}},
      {"training.eval_interval", int64_t(50), "steps between evaluations (0: only at the end)",
       {}, 0},
      {"training.eval_per_epoch", false,
       "also evaluate at the end of every pass over the training split, and report the pass's "
       "training loss and metrics (the two-tower model's ROC AUC)"},
      {"training.out_dir", std::string("runs/gpt"),
       "where metrics, the loss curve, checkpoints and the token file go"},
      {"checkpoint.interval", int64_t(0),
       "steps between checkpoints (0: only at the end of training)", {}, 0},
      {"checkpoint.keep", int64_t(3), "how many of the newest checkpoints are kept", {}, 1},
      {"checkpoint.enabled", true,
       "write checkpoints (the processes of a job on several hosts then need training.out_dir "
       "on storage they share)"},
      {"ema.decay", 0.0,
       "decay of an exponential moving average of the parameters, evaluated instead of them "
       "(0: off)", {}, 0, "", 1},
  };
  return schema;
}

} // namespace loom::train
