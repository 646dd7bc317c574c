// Debian's Fast C++ CSV Parser (libfccp), configured once for p2psim: no reader thread, and the header's
// harmless -Wstringop-truncation warning silenced.
#pragma once
#define CSV_IO_NO_THREAD
#include <limits>  // csv.h uses std::numeric_limits without including it
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

namespace p2psim {

/// A reader of `Columns` named columns, extra columns ignored; throws io::error::* with file and line.
template <unsigned Columns>
using CsvReader = io::CSVReader<Columns, io::trim_chars<' '>, io::no_quote_escape<','>, io::throw_on_overflow>;

}  // namespace p2psim
