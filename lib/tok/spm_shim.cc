// spm_shim.cc - the C interface of spm_shim.h over
// sentencepiece::SentencePieceProcessor. Kept thin on purpose: all policy
// (BOS/EOS, special-token parsing, UTF-8 repair) lives in tokenizer.c.
// base/buf.h is a C header without extern "C" of its own.
extern "C" {
#include "base/buf.h"
}
#include "tok/spm_shim.h"

#include <sentencepiece_processor.h>

#include <cstdio>
#include <new>
#include <string>
#include <vector>

struct spm_shim {
    sentencepiece::SentencePieceProcessor sp;
};

static void set_err(char *err, size_t errlen, const char *what, const std::string &msg) {
    if (err && errlen) std::snprintf(err, errlen, "%s: %s", what, msg.c_str());
}

extern "C" spm_shim *spm_shim_load(const void *data, size_t len, char *err, size_t errlen) {
    spm_shim *s = new (std::nothrow) spm_shim;
    if (!s) {
        set_err(err, errlen, "SentencePiece model", "out of memory");
        return nullptr;
    }
    auto st = s->sp.LoadFromSerializedProto(
        absl::string_view(static_cast<const char *>(data), len));
    if (!st.ok()) {
        // The library's message for a failed parse is a source location.
        std::string msg = st.ToString();
        if (msg.find("ParseFromArray") != std::string::npos) msg = "protobuf parse failed";
        set_err(err, errlen, "SentencePiece model", msg);
        delete s;
        return nullptr;
    }
    return s;
}

extern "C" void spm_shim_free(spm_shim *s) { delete s; }

extern "C" int spm_shim_encode(const spm_shim *s, const char *text, size_t len, cal_ids *out,
                               char *err, size_t errlen) {
    std::vector<int> ids;
    auto st = s->sp.Encode(absl::string_view(text, len), &ids);
    if (!st.ok()) {
        set_err(err, errlen, "SentencePiece encode", st.ToString());
        return -1;
    }
    cal_ids_reserve(out, out->n + ids.size());
    for (int id : ids) cal_ids_push(out, static_cast<uint32_t>(id));
    return 0;
}

extern "C" int spm_shim_decode(const spm_shim *s, const uint32_t *ids, size_t n, cal_buf *out,
                               char *err, size_t errlen) {
    std::vector<int> v(ids, ids + n);
    std::string text;
    auto st = s->sp.Decode(v, &text);
    if (!st.ok()) {
        set_err(err, errlen, "SentencePiece decode", st.ToString());
        return -1;
    }
    cal_buf_add(out, text.data(), text.size());
    return 0;
}

extern "C" uint32_t spm_shim_vocab_size(const spm_shim *s) {
    return static_cast<uint32_t>(s->sp.GetPieceSize());
}
extern "C" int64_t spm_shim_bos(const spm_shim *s) { return s->sp.bos_id(); }
extern "C" int64_t spm_shim_eos(const spm_shim *s) { return s->sp.eos_id(); }
extern "C" int64_t spm_shim_pad(const spm_shim *s) { return s->sp.pad_id(); }
extern "C" int64_t spm_shim_unk(const spm_shim *s) { return s->sp.unk_id(); }

extern "C" int spm_shim_is_special(const spm_shim *s, uint32_t id) {
    int i = static_cast<int>(id);
    return s->sp.IsControl(i) || s->sp.IsUnknown(i);
}

extern "C" const char *spm_shim_piece(const spm_shim *s, uint32_t id, size_t *len) {
    const std::string &p = s->sp.IdToPiece(static_cast<int>(id));
    *len = p.size();
    return p.data();
}

extern "C" int spm_shim_type(const spm_shim *s, uint32_t id) {
    int i = static_cast<int>(id);
    return s->sp.IsUnknown(i) ? SPM_UNKNOWN : s->sp.IsControl(i) ? SPM_CONTROL : s->sp.IsByte(i) ? SPM_BYTE
         : s->sp.IsUnused(i) ? SPM_UNUSED : SPM_NORMAL;
}

extern "C" float spm_shim_score(const spm_shim *s, uint32_t id) { return s->sp.GetScore(static_cast<int>(id)); }
