package io.gpuledger.finance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;

/**
 * A FOCUS file checked by {@link FocusRules}: CSV (plain or gzip; {@code NULL} or an empty field is null) or
 * Parquet, read by DuckDB. A CSV's decimal columns are typed DECIMAL(38,16) for the rules that compute, and
 * keep their text for those that judge its format; a value that is no decimal is null to the first and wrong to
 * the second.
 */
public final class FocusValidation {

    static final String TABLE = "focus_data";

    private FocusValidation() {
    }

    /** Runs the shipped rules over {@code file}, claiming {@code capabilities}. */
    public static FocusRules.Report of(Path file, Set<String> capabilities) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no FOCUS file at " + file);
        }
        FocusRules rules = FocusRules.shipped();
        try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = connection.createStatement()) {
            String source = "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
            if (FocusFile.Format.of(file) == FocusFile.Format.PARQUET) {
                statement.execute("CREATE VIEW " + TABLE + " AS SELECT * FROM read_parquet(" + source + ")");
            } else {
                statement.execute("CREATE TABLE raw_rows AS SELECT * FROM read_csv(" + source
                        + ", header = true, all_varchar = true, nullstr = ['NULL', ''])");
                StringJoiner select = new StringJoiner(", ");
                for (String column : columns(connection, "raw_rows")) {
                    String quoted = FocusFile.quoted(column);
                    if (rules.decimalColumns().contains(column)) {
                        select.add("TRY_CAST(" + quoted + " AS " + FocusFile.DECIMAL + ") AS " + quoted);
                        select.add(quoted + " AS " + FocusFile.quoted(column + FocusRules.TEXT_SUFFIX));
                    } else {
                        select.add(quoted);
                    }
                }
                statement.execute("CREATE TABLE " + TABLE + " AS SELECT " + select + " FROM raw_rows");
            }
            return rules.check(connection, TABLE, capabilities);
        } catch (SQLException e) {
            throw new IllegalArgumentException("cannot read " + file + " as FOCUS rows: " + e.getMessage(), e);
        }
    }

    private static List<String> columns(Connection connection, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT column_name FROM information_schema.columns"
                        + " WHERE table_name = '" + table + "' ORDER BY ordinal_position")) {
            while (rows.next()) {
                columns.add(rows.getString(1));
            }
        }
        return columns;
    }
}
