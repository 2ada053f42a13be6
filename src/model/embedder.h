#pragma once

// Embedder: turns texts into dense vectors. Implementations: the built-in
// `hashing` embedder (hashing_embedder.h; lexical, not semantic, no weights)
// and HTTP providers (OpenAI-compatible /v1/embeddings, Ollama /api/embed)
// built by factory.h from the `embedding.dense` config section.
//
// Thread safety: every method may be called concurrently from any number of
// threads; HTTP embedders bound their in-flight requests themselves
// (`max_concurrent`).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "skald/result.h"

namespace skald {

class TermList;
class Tokenizer;

// Asymmetric models embed queries and documents differently
// (`query_param` / `document_param`); symmetric ones ignore the kind.
enum class EmbedKind { kQuery, kDocument };

// Counters of one model client since it was created. Built-in models report
// zeros.
struct ModelStats {
  uint64_t calls = 0;       // logical calls (Embed, Chat, Rerank batches)
  uint64_t requests = 0;    // HTTP requests sent, retries included
  uint64_t retries = 0;     // requests that were retries of a failed one
  uint64_t failures = 0;    // logical calls that returned an error
  uint64_t fast_fails = 0;  // calls refused by the open circuit breaker
};

class Embedder {
 public:
  virtual ~Embedder() = default;

  // Provider as configured: "hashing", "openai", "ollama", "jina", ...
  virtual std::string provider() const = 0;
  // Model name. The hashing embedder names its algorithm version and the
  // tokenizer it uses, so any change of output changes the name.
  virtual std::string model() const = 0;
  // Length of every vector Embed returns (> 0).
  virtual int Dimension() const = 0;

  // Embeds `texts` in order: one vector of Dimension() floats per text.
  // HTTP embedders send one request per `batch_size` texts, at most
  // `max_concurrent` at a time, and check the dimension of every vector
  // they receive. Errors name the provider, the model and the HTTP status;
  // they never contain the API key.
  virtual Result<std::vector<std::vector<float>>> Embed(std::span<const std::string> texts,
                                                        EmbedKind kind = EmbedKind::kDocument) = 0;

  virtual ModelStats stats() const { return {}; }

  // True when vectors encode only the words of a text (the built-in hashing
  // embedder): their similarity repeats what BM25 already scores, so the
  // retriever does not fuse them unless configured to.
  virtual bool lexical() const { return false; }

  // False when a vector costs less to compute than to store and look up in
  // the catalog's embedding cache (the built-in hashing embedder): the
  // indexer then neither reads nor writes the cache for it.
  virtual bool worth_caching() const { return true; }

  // For an embedder whose vector of a document depends on the document's
  // terms alone (the built-in hashing one): the tokenizer that gives them.
  // Null for the others.
  virtual const Tokenizer* document_tokenizer() const { return nullptr; }
  // The vector Embed(kDocument) gives for a text whose terms, by
  // document_tokenizer(), are `terms`: a caller that has the terms already
  // (and keeps them for its own use) spares the embedder tokenizing again.
  // FailedPrecondition from an embedder without a document_tokenizer().
  virtual Result<std::vector<float>> EmbedTerms(const TermList& terms);

  // Stable identity stored with vectors: "<provider>:<model>:<dimension>".
  std::string Name() const;
};

}  // namespace skald
