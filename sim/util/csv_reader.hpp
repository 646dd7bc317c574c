// Debian's Fast C++ CSV Parser (libfccp), configured once for p2psim: no reader thread, and the header's
// harmless -Wstringop-truncation warning silenced.
#pragma once
#define CSV_IO_NO_THREAD
#include <limits>  // csv.h uses std::numeric_limits without including it
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <string>

#include "read_text.hpp"

namespace p2psim {

/// A reader of `Columns` named columns, extra columns ignored; throws io::error::* with file and line.
template <unsigned Columns>
using CsvParser = io::CSVReader<Columns, io::trim_chars<' '>, io::no_quote_escape<','>, io::throw_on_overflow>;

struct CsvText {
  std::string text;
};

/// The same, on a user's file read whole within kMaxCsvFileBytes (InputError past it), so that a device or a
/// huge file is refused before any row is parsed. The parser reads from the text it holds (a base of its own,
/// built first: the parser does not own the bytes it reads).
template <unsigned Columns>
class CsvReader : private CsvText, public CsvParser<Columns> {
 public:
  explicit CsvReader(const std::string& path)
      : CsvText{read_input_file(path, kMaxCsvFileBytes)}, CsvParser<Columns>(path, text.data(), text.data() + text.size()) {}
};

}  // namespace p2psim
