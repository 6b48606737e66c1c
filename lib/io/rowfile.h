/* rowfile.h - ROW records to and from calibration files that other tools
 * read: .safetensors (tensor input_ids int64 [rows, len], attention_mask
 * when a row has padding), .npy (int64 [rows, len]; NAME.mask.npy beside
 * it when a row has padding), .npz (input_ids and attention_mask, export
 * only) and .jsonl ({"input_ids": [...], "attention_mask": [...]} per row:
 * the mask always, all ones when unpadded, as AutoGPTQ requires it).
 * Rows of several lengths (cal-pack --pad none) keep their lengths: each
 * .jsonl line its own; in .safetensors/.npz/.npy padded on the right to the
 * longest row (the stream's pad id, else its eos, else 0) with
 * attention_mask and (.safetensors/.npz) lengths int64 [rows]; or per batch
 * (cal_rowset_batch). Rows with a role mask also give labels (the id where
 * the token is the assistant's output, -100 elsewhere) and loss_mask
 * (1 there, 0 elsewhere), as llm-compressor and transformers take them.
 *
 * Export keeps what the file format cannot hold in safetensors __metadata__:
 *   calkit.stream   the stream metadata, as "key=value" lines (cal-stream(5))
 *   calkit.rows     JSON [[label, flags, count], ...]: runs of rows
 *   calkit.ids      16 hex digits per row: the document ids
 * so that stream -> .safetensors -> stream is byte-identical. Noise rows are
 * exported as rows of -1 and imported back as noise rows. */
#ifndef CAL_ROWFILE_H
#define CAL_ROWFILE_H

#include "stream/stream.h"

typedef enum { CAL_RF_NONE = 0, CAL_RF_SAFETENSORS, CAL_RF_NPY, CAL_RF_NPZ, CAL_RF_JSONL } cal_rf_type;

/* The file type named by PATH's extension, or CAL_RF_NONE. */
cal_rf_type cal_rf_type_of(const char *path);

/* Collects ROW records in memory (4 bytes per id, 2 per id for the masks). */
typedef struct cal_rowset cal_rowset;
cal_rowset *cal_rowset_new(cal_rf_type type);
/* Rows written in batches of `rows`, each padded on the right to its own
 * longest row, as GPTQModel's collate_data pads a batch: tensors NAME.K
 * (input_ids.0, attention_mask.0, ...) in .safetensors/.npz, one JSON
 * object of lists of rows per batch in .jsonl; not for .npy. */
void cal_rowset_batch(cal_rowset *s, uint64_t rows);
/* Dies naming the record when it is not a ROW, or when the type cannot hold
 * it (.npy: a role mask). */
void cal_rowset_add(cal_rowset *s, cal_reader *r, const cal_rec *rec);
size_t cal_rowset_rows(const cal_rowset *s);
/* Writes PATH atomically (or stdout for "-"); meta is the stream metadata. */
void cal_rowset_write(cal_rowset *s, const char *path, const cal_meta *meta);
void cal_rowset_free(cal_rowset *s);

/* Reads PATH (type by extension) and writes its rows to w as ROW records.
 * Restores the stream metadata and row labels/ids when PATH carries calkit
 * metadata; otherwise labels rows with the file's base name, ids are XXH3 of
 * the row's ids, and a stage line from argc/argv is added. Dies with
 * "PATH: byte OFF: ..." (or "line N") on bad input. Returns rows written. */
size_t cal_rowfile_import(const char *path, cal_writer *w, int argc, char **argv);

#endif
