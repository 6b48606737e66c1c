/* embed.h - token -> first-layer input: an embedding row of a safetensors
 * checkpoint, optionally through the first RMSNorm (x / rms(x) * gamma),
 * computed in float64. */
#ifndef CAL_EMBED_H
#define CAL_EMBED_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_embed cal_embed;

/* spec is MODEL or MODEL:TENSOR; MODEL is a .safetensors file, an
 * index.json of a sharded checkpoint, or a directory holding either. Without
 * TENSOR the usual embedding names are tried (model.embed_tokens.weight,
 * transformer.wte.weight, tok_embeddings.weight, ...), then the one tensor
 * whose name ends in embed_tokens.weight, wte.weight or tok_embeddings.weight
 * (several such is an error naming them). rmsnorm names the RMSNorm weight
 * (NULL: none). Dies with the close names when a tensor is missing. */
cal_embed *cal_embed_open(const char *spec, const char *rmsnorm, double eps);
size_t cal_embed_vocab(const cal_embed *e);
size_t cal_embed_dim(const cal_embed *e);
const char *cal_embed_tensor(const cal_embed *e); /* the name found */
/* out[0..d) = f(E[t]); t < vocab. A row holding NaN or Inf (before or
 * after the RMSNorm) ends the program naming the shard and the row's byte
 * offset: "PROG: FILE: byte OFF: embedding row T of 'NAME' holds NaN or Inf". */
void cal_embed_row(const cal_embed *e, uint32_t t, double *out);
void cal_embed_close(cal_embed *e);

#endif
