#include "ingest/parsers/document_test_util.h"

#include <archive.h>
#include <archive_entry.h>

#include <cstdio>
#include <memory>

namespace skald::testing {

std::string ZipBytes(const ZipEntries& entries) {
  size_t capacity = 64 * 1024;
  for (const auto& [path, content] : entries) capacity += path.size() + content.size() + 256;
  std::string buffer(capacity, '\0');
  size_t used = 0;
  std::unique_ptr<archive, int (*)(archive*)> ar(archive_write_new(), archive_write_free);
  archive_write_set_format_zip(ar.get());
  archive_write_open_memory(ar.get(), buffer.data(), buffer.size(), &used);
  for (const auto& [path, content] : entries) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                   archive_entry_free);
    archive_entry_set_pathname(entry.get(), path.c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(content.size()));
    archive_write_header(ar.get(), entry.get());
    archive_write_data(ar.get(), content.data(), content.size());
  }
  archive_write_close(ar.get());
  buffer.resize(used);
  return buffer;
}

namespace {

std::string PdfString(const std::string& text) {
  std::string out = "(";
  for (char c : text) {
    if (c == '(' || c == ')' || c == '\\') out += '\\';
    out += c;
  }
  return out + ")";
}

}  // namespace

std::string PdfBytes(const std::vector<std::vector<std::string>>& pages, const std::string& title,
                     bool encrypted) {
  // Objects: 1 catalog, 2 pages, 3 font, 4 info, then (page, contents) pairs.
  std::vector<std::string> objects;
  std::string kids;
  for (size_t i = 0; i < pages.size(); ++i) kids += std::to_string(5 + 2 * i) + " 0 R ";
  objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages.size()) + " >>");
  objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  objects.push_back(title.empty() ? "<< >>" : "<< /Title " + PdfString(title) + " >>");
  for (size_t i = 0; i < pages.size(); ++i) {
    std::string stream = "BT /F1 12 Tf 16 TL 72 720 Td";
    for (const std::string& line : pages[i]) stream += " " + PdfString(line) + " Tj T*";
    stream += " ET";
    objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents " +
                      std::to_string(6 + 2 * i) + " 0 R >>");
    objects.push_back("<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream +
                      "\nendstream");
  }
  std::string hex32(64, 'A');
  if (encrypted) {
    objects.push_back("<< /Filter /Standard /V 1 /R 2 /O <" + hex32 + "> /U <" + hex32 + "> /P -4 >>");
  }
  std::string pdf = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t offset : offsets) {
    char entry[32];
    std::snprintf(entry, sizeof(entry), "%010zu 00000 n \n", offset);
    pdf += entry;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
         " /Root 1 0 R /Info 4 0 R" +
         (encrypted ? " /Encrypt " + std::to_string(objects.size()) + " 0 R /ID [<" + hex32.substr(0, 32) +
                          "> <" + hex32.substr(0, 32) + ">]"
                    : std::string()) +
         " >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string DocxBytes(const std::vector<std::pair<std::string, std::string>>& paragraphs,
                      const std::string& title) {
  const std::string w = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"";
  std::string body;
  for (const auto& [style, text] : paragraphs) {
    body += "<w:p>";
    if (!style.empty()) body += "<w:pPr><w:pStyle w:val=\"" + style + "\"/></w:pPr>";
    body += "<w:r><w:t xml:space=\"preserve\">" + XmlEscape(text) + "</w:t></w:r></w:p>";
  }
  std::string styles = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><w:styles " + w + ">";
  styles += "<w:style w:type=\"paragraph\" w:styleId=\"Title\"><w:name w:val=\"Title\"/></w:style>";
  for (int i = 1; i <= 6; ++i) {
    styles += "<w:style w:type=\"paragraph\" w:styleId=\"Heading" + std::to_string(i) +
              "\"><w:name w:val=\"heading " + std::to_string(i) + "\"/></w:style>";
  }
  styles += "</w:styles>";
  ZipEntries entries = {
      {"[Content_Types].xml",
       "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Types "
       "xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"><Default "
       "Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
       "<Default Extension=\"xml\" ContentType=\"application/xml\"/><Override "
       "PartName=\"/word/document.xml\" "
       "ContentType=\"application/"
       "vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/></Types>"},
      {"_rels/.rels",
       "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Relationships "
       "xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship "
       "Id=\"rId1\" "
       "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" "
       "Target=\"word/document.xml\"/></Relationships>"},
      {"word/document.xml", "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><w:document " +
                                w + "><w:body>" + body + "</w:body></w:document>"},
      {"word/styles.xml", styles},
  };
  if (!title.empty()) {
    entries.emplace_back(
        "docProps/core.xml",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><cp:coreProperties "
        "xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" "
        "xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>" +
            XmlEscape(title) + "</dc:title></cp:coreProperties>");
  }
  return ZipBytes(entries);
}

}  // namespace skald::testing
