#include "index/vector_index_set.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>
#include <unordered_set>

#include "common/thread_name.h"
#include "storage/catalog.h"

namespace skald {
namespace {

constexpr char kFileName[] = "vectors.skvi";
constexpr size_t kRebuildBatch = 8192;

bool PlainByte(char c, bool first) {
  if (first && c == '.') return false;
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

std::string EscapeAccount(std::string_view account) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < account.size(); ++i) {
    char c = account[i];
    if (PlainByte(c, i == 0)) {
      out.push_back(c);
    } else {
      auto b = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
  }
  return out.empty() ? "%" : out;  // "%" alone never decodes to a non-empty name
}

bool UnescapeAccount(std::string_view name, std::string* out) {
  out->clear();
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (name == "%") return true;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '%') {
      out->push_back(name[i]);
      continue;
    }
    if (i + 2 >= name.size()) return false;
    int hi = hex(name[i + 1]), lo = hex(name[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

// Upserts and deletes of one account, applied in catalog order: a run of
// upserts is flushed before a delete (and when an id repeats in the run).
class PendingOps {
 public:
  explicit PendingOps(VectorIndex* index) : index_(index) {}

  Status Upsert(const Record& r) {
    if (!deletes_.empty() || ids_.count(r.key) != 0) SKALD_RETURN_IF_ERROR(Flush());
    ids_.insert(r.key);
    records_.push_back(r);  // the RecordFields part; the vector goes to vectors_
    vectors_.insert(vectors_.end(), r.vector.begin(), r.vector.end());
    return records_.size() >= kRebuildBatch ? Flush() : Status::Ok();
  }
  Status Delete(uint64_t key) {
    if (!records_.empty()) SKALD_RETURN_IF_ERROR(Flush());
    deletes_.push_back(key);
    return Status::Ok();
  }
  Status Flush() {
    if (!records_.empty()) {
      SKALD_RETURN_IF_ERROR(index_->Upsert(records_, vectors_));
      applied_ += records_.size();
    }
    if (!deletes_.empty()) {
      SKALD_RETURN_IF_ERROR(index_->Delete(deletes_).status());
      applied_ += deletes_.size();
    }
    records_.clear();
    vectors_.clear();
    ids_.clear();
    deletes_.clear();
    return Status::Ok();
  }
  uint64_t applied() const { return applied_; }

 private:
  VectorIndex* index_;
  std::vector<RecordFields> records_;
  std::vector<float> vectors_;
  std::unordered_set<uint64_t> ids_;
  std::vector<uint64_t> deletes_;
  uint64_t applied_ = 0;
};

}  // namespace

Status VectorIndexSetOptions::Validate() const {
  if (dir.empty()) return Status::InvalidArgument("vector index set: dir is empty");
  if (catch_up_batch < 1) return Status::InvalidArgument("vector index set: catch_up_batch < 1");
  return index.Validate();
}

std::string VectorIndexSet::PathFor(const std::string& dir, std::string_view account) {
  return (std::filesystem::path(dir) / EscapeAccount(account) / kFileName).string();
}

VectorIndexSet::VectorIndexSet(VectorIndexSetOptions options, Catalog* catalog)
    : options_(std::move(options)), catalog_(catalog) {}

VectorIndexSet::~VectorIndexSet() { StopLinker(); }

void VectorIndexSet::StopLinker() {
  if (!linker_.joinable()) return;
  stopping_.store(true);
  {
    std::lock_guard lock(linker_mu_);
    linker_stop_ = true;
  }
  linker_cv_.notify_one();
  linker_.join();
}

void VectorIndexSet::WakeLinker() {
  if (!linker_.joinable()) return;
  {
    std::lock_guard lock(linker_mu_);
    linker_wake_ = true;
  }
  linker_cv_.notify_one();
}

VectorIndexSet::LinkHold& VectorIndexSet::LinkHold::operator=(LinkHold&& other) noexcept {
  if (this != &other) {
    Release();
    set_ = std::exchange(other.set_, nullptr);
  }
  return *this;
}

void VectorIndexSet::LinkHold::Release() {
  if (set_ == nullptr) return;
  if (set_->link_holds_.fetch_sub(1) == 1) set_->WakeLinker();
  set_ = nullptr;
}

VectorIndexSet::LinkHold VectorIndexSet::HoldLinks() {
  link_holds_.fetch_add(1);
  return LinkHold(this);
}

void VectorIndexSet::LinkerLoop() {
  NameThisThread("skald-linker");
  // The lowest priority (Linux: nice is per thread): links take the CPU
  // that imports and searches leave idle.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
  // Small steps: a writer that must link (max_unlinked reached) or a save
  // waits for at most one step of this thread.
  constexpr uint64_t kLinkStep = 64;
  std::unique_lock lock(linker_mu_);
  while (true) {
    linker_cv_.wait(lock, [&] { return linker_stop_ || linker_wake_; });
    if (linker_stop_) return;
    linker_wake_ = false;
    lock.unlock();
    std::vector<std::pair<std::string, Entry*>> entries;
    {
      std::lock_guard entries_lock(mu_);
      for (auto& [account, entry] : entries_) entries.emplace_back(account, entry.get());
    }
    // Under a hold, only what would bring an upsert near its limit.
    const uint64_t held_limit = static_cast<uint64_t>(options_.index.hnsw.max_unlinked) / 2;
    for (auto& [account, entry] : entries) {
      while (!stopping_.load() &&
             !(link_holds_.load() > 0 && entry->index->pending_links() <= held_limit) &&
             entry->index->LinkPending(kLinkStep) > 0) {
      }
      if (stopping_.load()) break;
      // Whole again: saved now (a failed save is retried by the next save),
      // also when only its links changed since a save that left them waiting.
      std::lock_guard catch_up_lock(catch_up_mu_);
      if (entry->index->pending_links() == 0 && (entry->Unsaved() || entry->saved_pending > 0)) {
        (void)SaveEntry(account, entry);
      }
    }
    lock.lock();
  }
}

Result<std::unique_ptr<VectorIndexSet>> VectorIndexSet::Open(const VectorIndexSetOptions& options,
                                                             Catalog* catalog) {
  SKALD_RETURN_IF_ERROR(options.Validate());
  SKALD_RETURN_IF_ERROR(EnvOrDefault(options.index.env)->CreateDirs(options.dir));
  std::error_code ec;
  std::unique_ptr<VectorIndexSet> set(new VectorIndexSet(options, catalog));

  SKALD_ASSIGN_OR_RETURN(std::vector<std::string> accounts, catalog->ListAccounts());
  for (const auto& entry : std::filesystem::directory_iterator(options.dir, ec)) {
    std::string account;
    if (entry.is_directory(ec) && UnescapeAccount(entry.path().filename().string(), &account)) {
      accounts.push_back(account);
    }
  }
  std::sort(accounts.begin(), accounts.end());
  accounts.erase(std::unique(accounts.begin(), accounts.end()), accounts.end());
  for (const auto& account : accounts) SKALD_RETURN_IF_ERROR(set->OpenAccount(account));
  set->set_seq_.store(set->MinAppliedSeq());
  SKALD_RETURN_IF_ERROR(set->CatchUp().status());
  for (auto& r : set->report_) {
    if (VectorIndex* index = set->Find(r.account)) r.records = index->size();
  }
  if (options.background_linker && options.index.kind == "hnsw" &&
      options.index.hnsw.max_unlinked > 0) {
    VectorIndexSet* raw = set.get();
    set->linker_ = std::thread([raw] { raw->LinkerLoop(); });
    set->WakeLinker();  // what the catch-up at open left
  }
  return set;
}

Status VectorIndexSet::OpenAccount(const std::string& account) {
  auto entry = std::make_unique<Entry>();
  IndexOpenReport report;
  report.account = account;
  auto loaded = LoadVectorIndex(PathFor(options_.dir, account), options_.index);
  if (loaded.ok()) {
    entry->index = std::move(loaded).value();
    entry->saved_seq = entry->index->applied_seq();
    entry->saved_pending = entry->index->pending_links();
    report.action = IndexOpenReport::Action::kLoaded;
  } else {
    report.action = IndexOpenReport::Action::kRebuilt;
    report.reason = loaded.status().ToString();
    SKALD_RETURN_IF_ERROR(RebuildFromCatalog(account, entry.get()));
  }
  report.applied_seq = entry->index->applied_seq();
  report_.push_back(std::move(report));
  std::lock_guard lock(mu_);
  entries_[account] = std::move(entry);
  return Status::Ok();
}

bool VectorIndexSet::Indexable(const Record& r) const {
  // A record whose vector holds a NaN or an infinity (however it got into
  // the catalog) is left out, as one of another embedder is: the index
  // refuses such a vector, and a catch-up stuck on it would hold every
  // later change back, and every open.
  return r.embedder == options_.index.embedder &&
         r.vector.size() == static_cast<size_t>(options_.index.dim) &&
         std::all_of(r.vector.begin(), r.vector.end(), [](float x) { return std::isfinite(x); });
}

Status VectorIndexSet::RebuildFromCatalog(const std::string& account, Entry* entry) {
  SKALD_ASSIGN_OR_RETURN(auto fresh, NewVectorIndex(options_.index));
  // Changes after this sequence number are applied by CatchUp (re-applying
  // one already scanned is harmless: upserts and deletes are idempotent).
  SKALD_ASSIGN_OR_RETURN(int64_t seq, catalog_->MaxRecordSeq());
  PendingOps ops(fresh.get());
  SKALD_RETURN_IF_ERROR(catalog_->ScanRecords(account, false, [&](const Record& r) {
    if (!Indexable(r)) {
      skipped_.fetch_add(1);
      return Status::Ok();
    }
    return ops.Upsert(r);
  }));
  SKALD_RETURN_IF_ERROR(ops.Flush());
  fresh->set_applied_seq(seq);
  entry->index = std::move(fresh);
  entry->changes.fetch_add(1);
  if (options_.save_after_rebuild) return SaveEntry(account, entry);
  return Status::Ok();
}

Status VectorIndexSet::SaveEntry(const std::string& account, Entry* entry) {
  std::string path = PathFor(options_.dir, account);
  SKALD_RETURN_IF_ERROR(EnvOrDefault(options_.index.env)
                            ->CreateDirs(std::filesystem::path(path).parent_path().string()));
  uint64_t changes = entry->changes.load();
  int64_t seq = entry->index->applied_seq();
  // (Read before the save: links made meanwhile only cost the linker a
  // second save once it is done.)
  uint64_t pending = entry->index->pending_links();
  SKALD_RETURN_IF_ERROR(entry->index->Save(path));
  entry->saved_seq = seq;
  entry->saved_changes = changes;
  entry->saved_pending = pending;
  return Status::Ok();
}

Result<VectorIndexSet::Entry*> VectorIndexSet::EntryFor(std::string_view account) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(account);
  if (it != entries_.end()) return it->second.get();
  auto entry = std::make_unique<Entry>();
  SKALD_ASSIGN_OR_RETURN(entry->index, NewVectorIndex(options_.index));
  // An account without an index has no records at or below set_seq_ (the
  // catch-up that passed them would have created it).
  entry->index->set_applied_seq(set_seq_.load());
  Entry* raw = entry.get();
  entries_.emplace(std::string(account), std::move(entry));
  return raw;
}

Result<VectorIndex*> VectorIndexSet::ForAccount(std::string_view account) {
  SKALD_ASSIGN_OR_RETURN(Entry * entry, EntryFor(account));
  return entry->index.get();
}

VectorIndex* VectorIndexSet::Find(std::string_view account) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(account);
  return it == entries_.end() ? nullptr : it->second->index.get();
}

std::vector<std::string> VectorIndexSet::Accounts() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [account, entry] : entries_) out.push_back(account);
  return out;
}

int64_t VectorIndexSet::MinAppliedSeq() const {
  std::lock_guard lock(mu_);
  if (entries_.empty()) return set_seq_.load();
  int64_t seq = INT64_MAX;
  for (const auto& [account, entry] : entries_) seq = std::min(seq, entry->index->applied_seq());
  return seq;
}

Result<uint64_t> VectorIndexSet::CatchUp() {
  std::lock_guard catch_up_lock(catch_up_mu_);
  uint64_t applied = 0;
  int64_t from = MinAppliedSeq();
  while (true) {
    SKALD_ASSIGN_OR_RETURN(std::vector<Record> page,
                           catalog_->RecordsChangedSince(from, options_.catch_up_batch));
    if (page.empty()) break;
    std::map<Entry*, PendingOps> ops;
    for (const Record& r : page) {
      SKALD_ASSIGN_OR_RETURN(Entry * entry, EntryFor(r.account));
      if (r.seq <= entry->index->applied_seq()) continue;
      auto it = ops.try_emplace(entry, entry->index.get()).first;
      if (r.deleted || !Indexable(r)) {
        if (!r.deleted) skipped_.fetch_add(1);
        SKALD_RETURN_IF_ERROR(it->second.Delete(r.key));
      } else {
        SKALD_RETURN_IF_ERROR(it->second.Upsert(r));
      }
    }
    for (auto& [entry, pending] : ops) {
      SKALD_RETURN_IF_ERROR(pending.Flush());
      entry->changes.fetch_add(pending.applied());
      applied += pending.applied();
    }
    // Every record up to the page's last sequence number has been applied
    // to the index of its account; the other indexes had none in this range.
    int64_t last = page.back().seq;
    {
      std::lock_guard lock(mu_);
      for (auto& [account, entry] : entries_) {
        if (entry->index->applied_seq() < last) entry->index->set_applied_seq(last);
      }
    }
    set_seq_.store(last);
    from = last;
    if (page.size() < static_cast<size_t>(options_.catch_up_batch)) break;
  }
  if (applied > 0) WakeLinker();
  return applied;
}

Status VectorIndexSet::SaveAll() { return SaveChanged(/*skip_pending_links=*/false); }

Status VectorIndexSet::SaveLinked() { return SaveChanged(/*skip_pending_links=*/true); }

Status VectorIndexSet::SaveChanged(bool skip_pending_links) {
  std::lock_guard catch_up_lock(catch_up_mu_);
  std::vector<std::pair<std::string, Entry*>> todo;
  {
    std::lock_guard lock(mu_);
    for (auto& [account, entry] : entries_) {
      if (skip_pending_links && entry->index->pending_links() > 0) continue;
      if (entry->Unsaved()) {
        todo.emplace_back(account, entry.get());
      }
    }
  }
  for (auto& [account, entry] : todo) SKALD_RETURN_IF_ERROR(SaveEntry(account, entry));
  return Status::Ok();
}

uint64_t VectorIndexSet::PendingLinks() const {
  std::lock_guard lock(mu_);
  uint64_t pending = 0;
  for (const auto& [account, entry] : entries_) pending += entry->index->pending_links();
  return pending;
}

Result<int> VectorIndexSet::CompactIfNeeded(double max_deleted_fraction) {
  std::vector<Entry*> todo;
  {
    std::lock_guard lock(mu_);
    for (auto& [account, entry] : entries_) {
      double slots = double(entry->index->size() + entry->index->deleted());
      if (entry->index->deleted() > 0 && entry->index->deleted() > max_deleted_fraction * slots) {
        todo.push_back(entry.get());
      }
    }
  }
  for (Entry* entry : todo) {
    SKALD_RETURN_IF_ERROR(entry->index->Compact());
    entry->changes.fetch_add(1);
  }
  return static_cast<int>(todo.size());
}

}  // namespace skald
