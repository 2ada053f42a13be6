#include "storage/sqlite_env_vfs.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace skald {
namespace {

constexpr const char* kVfsName = "skald-env";
constexpr const char* kEnvParam = "skald_env";

// One open file: our header, then the real VFS's file object.
struct ShimFile {
  sqlite3_file base;  // must be first: SQLite sees a sqlite3_file*
  Env* env;           // null: forward without asking
  const char* name;   // valid while the file is open (SQLite's contract)
  sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

sqlite3_vfs* RealVfs(sqlite3_vfs* shim) { return static_cast<sqlite3_vfs*>(shim->pAppData); }
ShimFile* Shim(sqlite3_file* f) { return reinterpret_cast<ShimFile*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return Shim(f)->real(); }

// Env's verdict on a write (bytes > 0) or sync (bytes == 0) as a SQLite code.
int Ask(ShimFile* f, uint64_t bytes, int io_error) {
  if (f->env == nullptr) return SQLITE_OK;
  Status st = f->env->BeforeForeignWrite(f->name != nullptr ? f->name : "", bytes);
  if (st.ok()) return SQLITE_OK;
  return IsDiskFull(st) ? SQLITE_FULL : io_error;
}

int Close(sqlite3_file* f) {
  int rc = SQLITE_OK;
  if (Real(f)->pMethods != nullptr) rc = Real(f)->pMethods->xClose(Real(f));
  return rc;
}
int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  if (int rc = Ask(Shim(f), static_cast<uint64_t>(n), SQLITE_IOERR_WRITE); rc != SQLITE_OK) {
    return rc;
  }
  return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (int rc = Ask(Shim(f), 0, SQLITE_IOERR_FSYNC); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int remove) { return Real(f)->pMethods->xShmUnmap(Real(f), remove); }
int Fetch(sqlite3_file* f, sqlite3_int64 off, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), off, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return Real(f)->pMethods->xUnfetch(Real(f), off, p);
}

const sqlite3_io_methods kMethods = {
    3,        Close,       Read,       Write,       Truncate,   Sync,
    FileSize, Lock,        Unlock,     CheckReservedLock,       FileControl,
    SectorSize, DeviceCharacteristics, ShmMap,      ShmLock,    ShmBarrier,
    ShmUnmap, Fetch,       Unfetch,
};

int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  ShimFile* shim = Shim(file);
  shim->env = nullptr;
  shim->name = name;
  if (name != nullptr) {
    // Main database, journal and WAL names all answer URI parameters.
    if (const char* env = sqlite3_uri_parameter(name, kEnvParam); env != nullptr) {
      shim->env = reinterpret_cast<Env*>(std::strtoull(env, nullptr, 16));
    }
  }
  int rc = RealVfs(vfs)->xOpen(RealVfs(vfs), name, shim->real(), flags, out_flags);
  // SQLite calls xClose only when pMethods is set; leave it null on failure.
  file->pMethods = shim->real()->pMethods != nullptr ? &kMethods : nullptr;
  return rc;
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  return RealVfs(vfs)->xDelete(RealVfs(vfs), name, sync_dir);
}
int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  return RealVfs(vfs)->xAccess(RealVfs(vfs), name, flags, out);
}
int FullPathname(sqlite3_vfs* vfs, const char* name, int n, char* out) {
  return RealVfs(vfs)->xFullPathname(RealVfs(vfs), name, n, out);
}
void* DlOpen(sqlite3_vfs* vfs, const char* name) {
  return RealVfs(vfs)->xDlOpen(RealVfs(vfs), name);
}
void DlError(sqlite3_vfs* vfs, int n, char* out) { RealVfs(vfs)->xDlError(RealVfs(vfs), n, out); }
void (*DlSym(sqlite3_vfs* vfs, void* handle, const char* symbol))(void) {
  return RealVfs(vfs)->xDlSym(RealVfs(vfs), handle, symbol);
}
void DlClose(sqlite3_vfs* vfs, void* handle) { RealVfs(vfs)->xDlClose(RealVfs(vfs), handle); }
int Randomness(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xRandomness(RealVfs(vfs), n, out);
}
int Sleep(sqlite3_vfs* vfs, int micros) { return RealVfs(vfs)->xSleep(RealVfs(vfs), micros); }
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  return RealVfs(vfs)->xCurrentTime(RealVfs(vfs), out);
}
int GetLastError(sqlite3_vfs* vfs, int n, char* out) {
  return RealVfs(vfs)->xGetLastError(RealVfs(vfs), n, out);
}
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return RealVfs(vfs)->xCurrentTimeInt64(RealVfs(vfs), out);
}

// Registers the shim over the default VFS once per process. The VFS object
// is immutable after registration (SQLite keeps a pointer to it).
bool RegisterOnce() {
  static std::once_flag once;
  static sqlite3_vfs vfs;
  static bool ok = false;
  std::call_once(once, [] {
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    if (real == nullptr) return;
    std::memset(&vfs, 0, sizeof(vfs));
    vfs.iVersion = 2;
    vfs.szOsFile = static_cast<int>(sizeof(ShimFile)) + real->szOsFile;
    vfs.mxPathname = real->mxPathname;
    vfs.zName = kVfsName;
    vfs.pAppData = real;
    vfs.xOpen = Open;
    vfs.xDelete = Delete;
    vfs.xAccess = Access;
    vfs.xFullPathname = FullPathname;
    vfs.xDlOpen = DlOpen;
    vfs.xDlError = DlError;
    vfs.xDlSym = DlSym;
    vfs.xDlClose = DlClose;
    vfs.xRandomness = Randomness;
    vfs.xSleep = Sleep;
    vfs.xCurrentTime = CurrentTime;
    vfs.xGetLastError = GetLastError;
    vfs.xCurrentTimeInt64 = CurrentTimeInt64;
    ok = sqlite3_vfs_register(&vfs, /*makeDflt=*/0) == SQLITE_OK;
  });
  return ok;
}

// `path` as a URI path: the characters URIs give a meaning escaped.
std::string UriPath(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

int OpenSqliteWithEnv(const std::string& path, int flags, Env* env, sqlite3** db) {
  if (env == nullptr || env == Env::Default() || !RegisterOnce()) {
    return sqlite3_open_v2(path.c_str(), db, flags, nullptr);
  }
  std::string uri = fmt::format("file:{}?{}={:x}", UriPath(path), kEnvParam,
                                reinterpret_cast<uintptr_t>(env));
  return sqlite3_open_v2(uri.c_str(), db, flags | SQLITE_OPEN_URI, kVfsName);
}

}  // namespace skald
