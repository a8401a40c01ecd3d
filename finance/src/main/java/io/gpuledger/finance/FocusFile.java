package io.gpuledger.finance;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.StringJoiner;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * FOCUS rows gathered in an in-process DuckDB table and written as one file: CSV (gzip-compressed when the name
 * ends in {@code .gz}) or Parquet. Decimals are DECIMAL(38,16), exact as the rows hold them; date-times are
 * {@code YYYY-MM-DDTHH:mm:ssZ} text in CSV and timestamps with time zone in Parquet.
 */
public final class FocusFile implements AutoCloseable {

    /** The table the rows are gathered in. */
    static final String TABLE = "focus_rows";
    /** The SQL type of a decimal column: 16 decimals hold a 10-decimal price times a 6-decimal quantity exactly. */
    static final String DECIMAL = "DECIMAL(38,16)";
    private static final int DECIMAL_SCALE = 16;

    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'")
            .withZone(ZoneOffset.UTC);

    /** What a file is written as, from its name. */
    public enum Format {
        CSV, PARQUET;

        /** {@code .parquet}: Parquet; {@code .csv} or {@code .csv.gz}: CSV. */
        public static Format of(Path file) {
            String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".parquet")) {
                return PARQUET;
            }
            if (name.endsWith(".csv") || name.endsWith(".csv.gz")) {
                return CSV;
            }
            throw new IllegalArgumentException("write FOCUS to a .csv, .csv.gz or .parquet file, not " + file);
        }
    }

    private final Connection connection;
    private final DuckDBAppender appender;
    private long rows;

    public FocusFile() {
        try {
            connection = DriverManager.getConnection("jdbc:duckdb:");
            StringJoiner columns = new StringJoiner(", ");
            for (FocusColumn column : FocusColumn.values()) {
                columns.add(quoted(column.focusName()) + " " + (column.kind() == FocusColumn.Kind.DECIMAL ? DECIMAL
                        : "VARCHAR"));
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE " + TABLE + " (" + columns + ")");
            }
            appender = connection.unwrap(DuckDBConnection.class).createAppender(DuckDBConnection.DEFAULT_SCHEMA, TABLE);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open an in-process DuckDB for the FOCUS rows", e);
        }
    }

    public void add(FocusRow row) {
        try {
            appender.beginRow();
            for (FocusColumn column : FocusColumn.values()) {
                Object value = row.get(column);
                if (value == null) {
                    appender.appendNull();
                } else if (value instanceof BigDecimal decimal) {
                    appender.append(decimal.setScale(DECIMAL_SCALE, RoundingMode.HALF_EVEN));
                } else if (value instanceof Instant instant) {
                    appender.append(DATE_TIME.format(instant));
                } else {
                    appender.append((String) value);
                }
            }
            appender.endRow();
            rows++;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot add a FOCUS row: " + row, e);
        }
    }

    public long rows() {
        return rows;
    }

    /** Writes every row added so far to {@code file}, replacing it, in the format its name says. */
    public void writeTo(Path file) {
        Format format = Format.of(file);
        try (Statement statement = connection.createStatement()) {
            appender.flush();
            String target = "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
            StringJoiner select = new StringJoiner(", ");
            for (FocusColumn column : FocusColumn.values()) {
                String name = quoted(column.focusName());
                if (format == Format.PARQUET && column.kind() == FocusColumn.Kind.DATE_TIME) {
                    select.add("CAST(" + name + " AS TIMESTAMPTZ) AS " + name);
                } else if (format == Format.CSV && column.kind() == FocusColumn.Kind.DECIMAL) {
                    // the digits that say something: 12.29, not 12.2900000000000000
                    select.add("rtrim(rtrim(CAST(" + name + " AS VARCHAR), '0'), '.') AS " + name);
                } else {
                    select.add(name);
                }
            }
            statement.execute("COPY (SELECT " + select + " FROM " + TABLE + ") TO " + target + " (FORMAT "
                    + (format == Format.CSV ? "csv, HEADER true" : "parquet") + ")");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot write the FOCUS rows to " + file + ": " + e.getMessage(), e);
        }
    }

    /** {@code name} as a quoted SQL identifier. */
    static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    @Override
    public void close() {
        try {
            appender.close();
            connection.close();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot close the FOCUS rows' DuckDB", e);
        }
    }
}
