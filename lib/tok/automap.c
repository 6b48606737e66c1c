/* automap.c - model type -> tokenizer class (see automap.h). */
#include "tok/automap.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *cls;
    const char *const *types; /* NULL-terminated */
} map[] = {
    {"LlamaTokenizerFast", (const char *const[]){
        "arcee", "aria", "chameleon", "colpali", "deepseek_v2", "deepseek_v3", "deepseek_vl", "deepseek_vl_hybrid",
        "diffllama", "ernie4_5", "ernie4_5_moe", "idefics", "idefics2", "idefics3", "jamba", "janus", "jetmoe",
        "llama", "llama4", "llama4_text", "llava", "llava_next", "llava_next_video", "llava_onevision", "mistral",
        "mixtral", "mllama", "paligemma", "persimmon", "phi3", "phimoe", "video_llava", "vipllava", "zamba", "zamba2",
        NULL}},
    {"CodeLlamaTokenizerFast", (const char *const[]){"code_llama", NULL}},
    {"GemmaTokenizerFast", (const char *const[]){
        "gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "recurrent_gemma", "shieldgemma2",
        "siglip2", "t5gemma", NULL}},
    {"CohereTokenizerFast", (const char *const[]){"aya_vision", "cohere", "cohere2", NULL}},
    {"Qwen2TokenizerFast", (const char *const[]){
        "colqwen2", "internvl", "ovis2", "qwen2", "qwen2_5_omni", "qwen2_5_vl", "qwen2_audio", "qwen2_moe", "qwen2_vl",
        "qwen3", "qwen3_moe", "qwen3_next", "qwen3_omni_moe", "qwen3_vl", "qwen3_vl_moe", NULL}},
    {"GPT2TokenizerFast", (const char *const[]){
        "blip-2", "codegen", "dbrx", "emu3", "exaone4", "flex_olmo", "gpt2", "gpt_bigcode", "gpt_neo", "gptj",
        "granite", "granitemoe", "granitemoehybrid", "granitemoeshared", "instructblip", "instructblipvideo",
        "minimax", "olmo3", "opt", "phi", "starcoder2", NULL}},
    {"PreTrainedTokenizerFast", (const char *const[]){
        "bitnet", "blt", "csm", "falcon", "glm", "glm4", "glm4_moe", "glm4v", "glm4v_moe", "got_ocr2", "gpt_oss",
        "helium", "kosmos-2.5", "lfm2_vl", "modernbert", "moonshine", "moshi", "nemotron", "pixtral", "smollm3",
        "voxtral", NULL}},
};

const char *tok_class_of_model_type(const char *model_type)
{
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        for (const char *const *t = map[i].types; *t; t++)
            if (!strcmp(*t, model_type)) return map[i].cls;
    return NULL;
}

/* TOKENIZER_MAPPING_NAMES's classes at that commit (each once, "Fast" dropped
 * as v5 drops it), the backends and Bloom's (sorted for bsearch) */
static const char *const known[] = {
    "AlbertTokenizer", "BartTokenizer", "BarthezTokenizer", "BartphoTokenizer", "BertGenerationTokenizer",
    "BertJapaneseTokenizer", "BertTokenizer", "BertweetTokenizer", "BigBirdTokenizer", "BioGptTokenizer",
    "BlenderbotSmallTokenizer", "BlenderbotTokenizer", "BloomTokenizer", "ByT5Tokenizer", "CLIPTokenizer",
    "CTRLTokenizer", "CamembertTokenizer", "CanineTokenizer", "ClvpTokenizer", "CodeLlamaTokenizer",
    "CohereTokenizer", "CpmAntTokenizer", "CpmTokenizer", "DPRQuestionEncoderTokenizer", "DebertaTokenizer",
    "DebertaV2Tokenizer", "DiaTokenizer", "EsmTokenizer", "FNetTokenizer", "FSMTTokenizer",
    "FastSpeech2ConformerTokenizer", "FlaubertTokenizer", "FunnelTokenizer", "GPT2Tokenizer",
    "GPTNeoXJapaneseTokenizer", "GPTNeoXTokenizer", "GPTSw3Tokenizer", "GemmaTokenizer", "HerbertTokenizer",
    "LEDTokenizer", "LayoutLMv2Tokenizer", "LayoutLMv3Tokenizer", "LayoutXLMTokenizer", "LlamaTokenizer",
    "LukeTokenizer", "LxmertTokenizer", "M2M100Tokenizer", "MBart50Tokenizer", "MBartTokenizer", "MLukeTokenizer",
    "MPNetTokenizer", "MarianTokenizer", "MarkupLMTokenizer", "MgpstrTokenizer", "MistralCommonBackend",
    "MobileBertTokenizer", "MvpTokenizer", "MyT5Tokenizer", "NllbTokenizer", "NougatTokenizer",
    "OpenAIGPTTokenizer", "PLBartTokenizer", "ParakeetTokenizer", "PegasusTokenizer", "PerceiverTokenizer",
    "PhobertTokenizer", "PreTrainedTokenizer", "ProphetNetTokenizer", "PythonBackend", "Qwen2Tokenizer",
    "RagTokenizer", "ReformerTokenizer", "RemBertTokenizer", "RoCBertTokenizer", "RoFormerTokenizer",
    "RobertaTokenizer", "SeamlessM4TTokenizer", "SentencePieceBackend", "Siglip2Tokenizer", "SiglipTokenizer",
    "Speech2TextTokenizer", "SpeechT5Tokenizer", "SplinterTokenizer", "T5Tokenizer", "TapasTokenizer",
    "TokenizersBackend", "UdopTokenizer", "VitsTokenizer", "Wav2Vec2CTCTokenizer", "Wav2Vec2PhonemeCTCTokenizer",
    "WhisperTokenizer", "XGLMTokenizer", "XLMRobertaTokenizer", "XLMTokenizer", "XLNetTokenizer",
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tok_class_known(const char *name, size_t n)
{
    char buf[64];
    if (n >= 4 && !memcmp(name + n - 4, "Fast", 4)) n -= 4;
    if (n >= sizeof buf || memchr(name, 0, n)) return 0;
    memcpy(buf, name, n);
    buf[n] = 0;
    const char *key = buf;
    return bsearch(&key, known, sizeof known / sizeof *known, sizeof *known, by_name) != NULL;
}
