#include "ingest/file_bodies.h"

namespace skald {

void FileBodies::Add(std::string path, std::string_view bytes, std::string sha256_hex) {
  by_path_.insert_or_assign(std::move(path),
                            Body{bytes, std::move(sha256_hex), std::nullopt, nullptr, nullptr});
}

const FileBodies::Body* FileBodies::Find(std::string_view account, std::string_view path) const {
  if (account != account_) return nullptr;
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &it->second;
}

void FileBodies::SetPrepared(std::string_view path, Prepared prepared) {
  auto it = by_path_.find(path);
  if (it != by_path_.end()) it->second.prepared = std::move(prepared);
}

void FileBodies::SetTerms(std::string_view path, std::shared_ptr<const TermList> terms,
                          std::shared_ptr<const TermList> summary_terms) {
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return;
  if (terms != nullptr) it->second.terms = std::move(terms);
  if (summary_terms != nullptr) it->second.summary_terms = std::move(summary_terms);
}

std::optional<FileBodies::Prepared> FileBodies::TakePrepared(std::string_view account,
                                                            std::string_view path) {
  if (account != account_) return std::nullopt;
  auto it = by_path_.find(path);
  if (it == by_path_.end() || !it->second.prepared) return std::nullopt;
  std::optional<Prepared> taken = std::move(it->second.prepared);
  it->second.prepared.reset();
  return taken;
}

void FileBodies::NoteRecord(int64_t seq, const Body* body) {
  std::lock_guard<std::mutex> lock(mu_);
  by_seq_[seq] = RecordBody{body->bytes, std::move(body->terms), std::move(body->summary_terms)};
}

std::optional<FileBodies::RecordBody> FileBodies::TakeRecordBody(int64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_seq_.find(seq);
  if (it == by_seq_.end()) return std::nullopt;
  RecordBody taken = std::move(it->second);
  by_seq_.erase(it);
  return taken;
}

}  // namespace skald
