/* rowfile.h - ROW records to and from calibration files that other tools
 * read: .safetensors (tensor input_ids int64 [rows, len], attention_mask
 * when a row has padding), .npy (int64 [rows, len]; NAME.mask.npy beside
 * it when a row has padding), .npz (input_ids and attention_mask, export
 * only) and .jsonl ({"input_ids": [...], "attention_mask": [...]} per row:
 * the mask always, all ones when unpadded, as AutoGPTQ requires it).
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

/* Collects ROW records in memory (4 bytes per id, 1 per mask byte). */
typedef struct cal_rowset cal_rowset;
cal_rowset *cal_rowset_new(cal_rf_type type);
/* Dies naming the record when it is not a ROW, or when its length differs
 * from the first row's and the type needs equal rows (.safetensors, .npy). */
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
