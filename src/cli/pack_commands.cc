#include "cli/pack_commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <ostream>

#include "cli/local_file.h"

namespace skald::cli {

namespace fs = std::filesystem;

std::string PackOutputPath(const std::string& file, const std::string& name) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) return (fs::path(file) / name).string();
  if (file.ends_with(".ovpack")) return file;
  return file + ".ovpack";
}

Result<Json> SavePack(Backend& backend, const std::string& uri, const std::string& file,
                      bool include_vectors) {
  SKALD_ASSIGN_OR_RETURN(Download pack, backend.ExportPack(uri, include_vectors));
  const std::string path = PackOutputPath(file, pack.name);
  if (Status written = WriteFileAtomically(path, pack.bytes); !written.ok()) {
    return Status::IOError(fmt::format("cannot write {}: {}", path, written.message()));
  }
  Json result{{"file", path}, {"bytes", pack.bytes.size()}};
  if (!uri.empty()) result["uri"] = uri;
  return result;
}

Result<Json> LoadPack(Backend& backend, const std::string& file, const PackImportRequest& request,
                      bool restore) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return UsageError(
        fmt::format("{}: no such package file: {}", restore ? "restore" : "import", file));
  }
  Result<std::string> bytes = ReadLocalInput(file);
  if (!bytes.ok()) return UsageError(bytes.status().message());
  return backend.ImportPack(fs::path(file).filename().string(), *bytes, request, restore);
}

void RenderPack(const Json& result, std::ostream& out) {
  auto text = [&](const char* key) {
    auto it = result.is_object() ? result.find(key) : result.end();
    return it != result.end() && !it->is_null()
               ? (it->is_string() ? it->get<std::string>() : it->dump())
               : std::string();
  };
  if (result.is_object() && result.contains("file")) {
    out << "saved " << text("file") << " (" << text("bytes") << " bytes)\n";
  } else {
    out << "imported " << text("uri") << '\n';
  }
}

void AddPackCommands(CLI::App& app,
                     std::function<int(const std::function<Result<Json>(Backend&)>&)> execute,
                     std::function<int()>* action) {
  // Flag storage bound by CLI11; shared with the callbacks so it outlives this call.
  struct Args {
    std::string uri, file, parent;
    bool include_vectors = false;
    PackImportRequest request;
  };
  auto a = std::make_shared<Args>();
  auto conflict_flags = [a](CLI::App* sub) {
    sub->add_option("--on-conflict", a->request.on_conflict, "When the target holds something")
        ->check(CLI::IsMember({"fail", "overwrite", "skip"}))
        ->capture_default_str();
    sub->add_option("--vector-mode", a->request.vector_mode,
                    "auto: reuse the package's vectors when this embedder made them; "
                    "recompute: embed again; require: reuse or refuse")
        ->check(CLI::IsMember({"auto", "recompute", "require"}))
        ->capture_default_str();
  };

  CLI::App* exp = app.add_subcommand(
      "export", "Save a directory (resources or user) as an OVPack package file (ADMIN)");
  exp->add_option("uri", a->uri, "Directory URI")->required();
  exp->add_option("file", a->file, "Output file or directory (.ovpack is appended)")->required();
  exp->add_flag("--include-vectors", a->include_vectors, "Also save the records' vectors");
  exp->callback([a, execute, action] {
    *action = [a, execute] {
      return execute([a](Backend& b) { return SavePack(b, a->uri, a->file, a->include_vectors); });
    };
  });

  CLI::App* backup = app.add_subcommand(
      "backup", "Save every resource and user space you can see as one package (ADMIN)");
  backup->add_option("file", a->file, "Output file or directory (.ovpack is appended)")->required();
  backup->add_flag("--include-vectors", a->include_vectors, "Also save the records' vectors");
  backup->callback([a, execute, action] {
    *action = [a, execute] {
      return execute([a](Backend& b) { return SavePack(b, "", a->file, a->include_vectors); });
    };
  });

  CLI::App* imp = app.add_subcommand(
      "import", "Load a package file's tree below a directory, and index it (ADMIN)");
  imp->add_option("file", a->file, "Package file (.ovpack)")->required();
  imp->add_option("parent", a->request.parent, "Directory URI to put the tree in")->required();
  conflict_flags(imp);
  imp->callback([a, execute, action] {
    *action = [a, execute] {
      return execute([a](Backend& b) { return LoadPack(b, a->file, a->request, false); });
    };
  });

  CLI::App* restore = app.add_subcommand(
      "restore", "Load a backup package back into its scopes, and index it (ADMIN)");
  restore->add_option("file", a->file, "Backup package file (.ovpack)")->required();
  conflict_flags(restore);
  restore->callback([a, execute, action] {
    *action = [a, execute] {
      return execute([a](Backend& b) { return LoadPack(b, a->file, a->request, true); });
    };
  });
}

}  // namespace skald::cli
