package io.shardwise.simulator;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A table of results, written as Markdown (rounded for reading) and as CSV (full precision, one
 * header row, RFC 4180 quoting). Percent columns hold fractions: {@code 0.0123} reads {@code 1.23%}
 * in Markdown and stays {@code 0.0123} in CSV.
 */
final class Table {

  /** How a column shows its values in Markdown. */
  enum Kind {
    TEXT,
    INTEGER,
    DECIMAL,
    PERCENT
  }

  /** One column: its Markdown header, its CSV name, and how its numbers are shown. */
  record Column(String header, String csvName, Kind kind, int digits) {}

  private final List<Column> columns = new ArrayList<>();
  private final List<Object[]> rows = new ArrayList<>();

  Table text(String header, String csvName) {
    return add(new Column(header, csvName, Kind.TEXT, 0));
  }

  Table integer(String header, String csvName) {
    return add(new Column(header, csvName, Kind.INTEGER, 0));
  }

  Table decimal(String header, String csvName, int digits) {
    return add(new Column(header, csvName, Kind.DECIMAL, digits));
  }

  Table percent(String header, String csvName, int digits) {
    return add(new Column(header, csvName, Kind.PERCENT, digits));
  }

  private Table add(Column column) {
    if (!rows.isEmpty()) {
      throw new IllegalStateException("columns must be added before rows");
    }
    columns.add(column);
    return this;
  }

  /**
   * Adds a row, one value per column: a {@code String} or, in number columns, a {@code Number};
   * {@code null} is shown as a dash in Markdown and left empty in CSV.
   */
  Table row(Object... values) {
    if (values.length != columns.size()) {
      throw new IllegalArgumentException(
          "a row needs " + columns.size() + " values but got " + values.length);
    }
    rows.add(values.clone());
    return this;
  }

  List<Column> columns() {
    return List.copyOf(columns);
  }

  int rowCount() {
    return rows.size();
  }

  /** The raw value of row {@code row}, column {@code column}. */
  Object value(int row, int column) {
    return rows.get(row)[column];
  }

  /** The raw value of row {@code row} in the column whose CSV name is {@code csvName}. */
  Object value(int row, String csvName) {
    for (int c = 0; c < columns.size(); c++) {
      if (columns.get(c).csvName().equals(csvName)) {
        return value(row, c);
      }
    }
    throw new IllegalArgumentException("no column " + csvName);
  }

  /** The number in row {@code row}, column {@code csvName}. */
  double number(int row, String csvName) {
    return ((Number) value(row, csvName)).doubleValue();
  }

  /** GitHub-flavoured Markdown, numbers right-aligned, ending with a newline. */
  String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append('|');
    for (Column column : columns) {
      sb.append(' ').append(column.header()).append(" |");
    }
    sb.append("\n|");
    for (Column column : columns) {
      sb.append(column.kind() == Kind.TEXT ? "---|" : "--:|");
    }
    sb.append('\n');
    for (Object[] row : rows) {
      sb.append('|');
      for (int c = 0; c < columns.size(); c++) {
        sb.append(' ').append(format(columns.get(c), row[c])).append(" |");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /** CSV with a header of the columns' CSV names, CRLF-free (LF line ends). */
  void writeCsv(Writer out) throws IOException {
    List<String> header = new ArrayList<>();
    for (Column column : columns) {
      header.add(csvField(column.csvName()));
    }
    out.write(String.join(",", header));
    out.write('\n');
    for (Object[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        if (c > 0) {
          out.write(',');
        }
        out.write(csvValue(row[c]));
      }
      out.write('\n');
    }
  }

  String csv() {
    java.io.StringWriter sw = new java.io.StringWriter();
    try {
      writeCsv(sw);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return sw.toString();
  }

  private static String format(Column column, Object value) {
    if (value == null) {
      return "-";
    }
    if (value instanceof String) {
      return ((String) value).replace("|", "\\|");
    }
    Number number = (Number) value;
    switch (column.kind()) {
      case INTEGER:
        return Long.toString(number.longValue());
      case DECIMAL:
        return String.format(Locale.ROOT, "%." + column.digits() + "f", number.doubleValue());
      case PERCENT:
        return String.format(
            Locale.ROOT, "%." + column.digits() + "f%%", 100 * number.doubleValue());
      default:
        return number.toString();
    }
  }

  private static String csvValue(Object value) {
    if (value == null) {
      return "";
    }
    if (value instanceof Double || value instanceof Float) {
      return Double.toString(((Number) value).doubleValue());
    }
    return csvField(value.toString());
  }

  /** A field quoted when it holds a comma, a quote or a line break; quotes doubled. */
  static String csvField(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
