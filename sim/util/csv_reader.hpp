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

#include "input_error.hpp"
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

/// The parser's error in p2psim's words, at the line and column it names (its own text repeats the file's path
/// and puts the value first: "The integer \"x\" contains an invalid digit in column ...").
inline InputError csv_input_error(const std::string& path, const io::error::base& e) {
  namespace err = io::error;
  const auto* at_line = dynamic_cast<const err::with_file_line*>(&e);
  const long line = at_line && at_line->file_line > 0 ? at_line->file_line : 0;
  const auto* column = dynamic_cast<const err::with_column_name*>(&e);
  const std::string field = column ? column->column_name : "";
  const auto* content = dynamic_cast<const err::with_column_content*>(&e);
  const std::string value = content ? std::string(" got '") + content->column_content + "'" : "";
  if (dynamic_cast<const err::no_digit*>(&e)) return {path, line, field, "expected a number," + value};
  if (dynamic_cast<const err::integer_must_be_positive*>(&e)) return {path, line, field, "must be >= 0," + value};
  if (dynamic_cast<const err::integer_overflow*>(&e) || dynamic_cast<const err::integer_underflow*>(&e))
    return {path, line, field, "the number is out of range," + value};
  if (dynamic_cast<const err::too_few_columns*>(&e)) return {path, line, "", "the row has fewer cells than the header"};
  if (dynamic_cast<const err::too_many_columns*>(&e)) return {path, line, "", "the row has more cells than the header"};
  if (dynamic_cast<const err::duplicated_column_in_header*>(&e)) return {path, 1, field, "column is given twice"};
  if (dynamic_cast<const err::missing_column_in_header*>(&e)) return {path, 1, field, "column is missing"};
  if (dynamic_cast<const err::extra_column_in_header*>(&e)) return {path, 1, field, "is not a column of this table"};
  if (dynamic_cast<const err::header_missing*>(&e)) return {path, 1, "", "the file is empty: expected a header row"};
  if (dynamic_cast<const err::line_length_limit_exceeded*>(&e)) return {path, line, "", "the line is over 16 MiB long"};
  if (dynamic_cast<const err::escaped_string_not_closed*>(&e)) return {path, line, field, "a quoted cell is not closed"};
  return {path, line, field, e.what()};
}

}  // namespace p2psim
