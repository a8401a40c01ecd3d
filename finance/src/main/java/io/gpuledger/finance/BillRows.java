package io.gpuledger.finance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * A provider's bill in DuckDB, as one table of the columns reconciliation needs, whatever export it came from:
 * a FOCUS export (AWS {@code FOCUS_1_2_AWS}, Azure's, Google Cloud's; CSV, gzip or Parquet) or AWS's Cost and
 * Usage Report 2.0. Every column is read as text first, so that a 12-digit account id keeps its leading zeros
 * and a decimal its digits; date-times are read with or without the {@code T} and the {@code Z} (the FOCUS 1.0
 * sample has neither).
 *
 * <p>The table {@link #TABLE}: {@code ResourceId}, {@code ChargePeriodStart}, {@code ChargePeriodEnd}
 * (TIMESTAMP, UTC), {@code ChargeCategory}, {@code ChargeClass}, {@code PricingCategory},
 * {@code CommitmentDiscountId}, {@code CommitmentDiscountType}, {@code BillingAccountId}, {@code BillingCurrency},
 * {@code BilledCost}, {@code EffectiveCost}, {@code ListCost}, {@code ContractedCost} (DECIMAL(38,16)),
 * {@code InstanceHours} (BOOLEAN: whether the row charges the instance's own running time, or credits it, rather
 * than what is billed on its id beside it: data transfer in GB, the storage attached to it) and
 * {@code SourceFile}.
 */
public final class BillRows {

    public static final String TABLE = "bill_rows";
    private static final String DECIMAL = FocusFile.DECIMAL;

    /** What kind of export a file is, by its columns. */
    public enum Export { FOCUS, CUR_2 }

    private BillRows() {
    }

    /** Loads {@code files} into {@link #TABLE} of {@code connection}; returns how many rows each kind gave. */
    public static long load(Connection connection, List<Path> files) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE OR REPLACE TABLE " + TABLE + " (ResourceId VARCHAR, ChargePeriodStart TIMESTAMP,"
                    + " ChargePeriodEnd TIMESTAMP, ChargeCategory VARCHAR, ChargeClass VARCHAR,"
                    + " PricingCategory VARCHAR,"
                    + " CommitmentDiscountId VARCHAR, CommitmentDiscountType VARCHAR, BillingAccountId VARCHAR,"
                    + " BillingCurrency VARCHAR, BilledCost " + DECIMAL + ", EffectiveCost " + DECIMAL + ", ListCost "
                    + DECIMAL + ", ContractedCost " + DECIMAL + ", InstanceHours BOOLEAN, SourceFile VARCHAR)");
            long rows = 0;
            for (Path file : files) {
                if (!Files.isRegularFile(file)) {
                    throw new IllegalArgumentException("no bill at " + file);
                }
                String source = "'" + file.toAbsolutePath().toString().replace("'", "''") + "'";
                String reader = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".parquet")
                        ? "read_parquet(" + source + ")"
                        : "read_csv(" + source + ", header = true, all_varchar = true, nullstr = ['NULL', ''])";
                statement.execute("CREATE OR REPLACE TEMP TABLE bill_file AS SELECT * FROM " + reader);
                Set<String> columns = columns(connection);
                Export export = columns.contains("ChargePeriodStart") ? Export.FOCUS
                        : columns.contains("line_item_usage_start_date") ? Export.CUR_2 : null;
                if (export == null) {
                    throw new IllegalArgumentException(file + " is neither a FOCUS export (no ChargePeriodStart) nor"
                            + " a Cost and Usage Report 2.0 (no line_item_usage_start_date)");
                }
                String select = export == Export.FOCUS ? focus(columns) : cur2(columns);
                rows += statement.executeUpdate("INSERT INTO " + TABLE + " SELECT " + select + ", " + source
                        + " FROM bill_file");
            }
            statement.execute("DROP TABLE IF EXISTS bill_file");
            return rows;
        }
    }

    /** The UTC days a bill's usage rows cover: from the first one's midnight to the midnight after the last. */
    public record Period(Instant from, Instant to) {
    }

    /** The period of the bill loaded in {@code connection}; empty when it has no usage row with a period. */
    public static Optional<Period> period(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT date_trunc('day', min(ChargePeriodStart)),"
                        + " date_trunc('day', max(ChargePeriodEnd) - INTERVAL 1 MICROSECOND) + INTERVAL 1 DAY"
                        + " FROM " + TABLE + " WHERE ChargeCategory = 'Usage' AND ChargePeriodStart IS NOT NULL")) {
            if (!rows.next() || rows.getObject(1) == null) {
                return Optional.empty();
            }
            return Optional.of(new Period(utc(rows.getTimestamp(1)), utc(rows.getTimestamp(2))));
        }
    }

    private static Instant utc(java.sql.Timestamp timestamp) {
        return timestamp.toLocalDateTime().toInstant(java.time.ZoneOffset.UTC);
    }

    private static String focus(Set<String> columns) {
        StringJoiner select = new StringJoiner(", ");
        select.add(text(columns, "ResourceId"));
        select.add(time(columns, "ChargePeriodStart"));
        select.add(time(columns, "ChargePeriodEnd"));
        for (String name : List.of("ChargeCategory", "ChargeClass", "PricingCategory", "CommitmentDiscountId",
                "CommitmentDiscountType", "BillingAccountId", "BillingCurrency")) {
            select.add(text(columns, name));
        }
        for (String name : List.of("BilledCost", "EffectiveCost", "ListCost", "ContractedCost")) {
            select.add(decimal(columns, name));
        }
        // AWS's FOCUS bills an instance's data transfer (Compute, in GB) and its EBS optimization (Storage) on the
        // instance's id: only compute time in hours is the instance's. A bill without the columns keeps every row.
        String unit = "lower(coalesce(" + text(columns, "ConsumedUnit") + ", 'hours'))";
        select.add("coalesce(" + text(columns, "ChargeCategory") + " = 'Credit', false) OR (coalesce("
                + text(columns, "ServiceCategory") + ", 'Compute') = 'Compute' AND (" + unit + " LIKE '%hour%' OR "
                + unit + " LIKE '%hr%'))");
        return select.toString();
    }

    /**
     * AWS's CUR 2.0 in FOCUS's terms: the line item's resource, period and unblended cost (what is billed); the
     * effective cost of a Savings Plan's or a reservation's covered usage from their own columns; the public
     * on-demand cost as the list cost. Fees, purchases and negations of covered usage are left out as usage.
     */
    private static String cur2(Set<String> columns) {
        String type = text(columns, "line_item_line_item_type");
        StringJoiner select = new StringJoiner(", ");
        select.add(text(columns, "line_item_resource_id"));
        select.add(time(columns, "line_item_usage_start_date"));
        select.add(time(columns, "line_item_usage_end_date"));
        select.add("CASE WHEN " + type + " IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage') THEN 'Usage'"
                + " WHEN " + type + " IN ('Credit', 'Refund') THEN 'Credit' WHEN " + type + " = 'Tax' THEN 'Tax'"
                + " WHEN " + type + " IN ('RIFee', 'SavingsPlanRecurringFee', 'SavingsPlanUpfrontFee') THEN 'Purchase'"
                + " ELSE 'Adjustment' END");
        select.add("NULL");
        select.add("CASE WHEN " + type + " IN ('DiscountedUsage', 'SavingsPlanCoveredUsage') THEN 'Committed'"
                + " WHEN " + text(columns, "line_item_usage_type") + " LIKE '%SpotUsage%' THEN 'Dynamic'"
                + " ELSE 'Standard' END");
        select.add("CASE WHEN " + type + " = 'SavingsPlanCoveredUsage' THEN "
                + text(columns, "savings_plan_savings_plan_a_r_n") + " WHEN " + type + " = 'DiscountedUsage' THEN "
                + text(columns, "reservation_reservation_a_r_n") + " END");
        select.add("CASE WHEN " + type + " = 'SavingsPlanCoveredUsage' THEN 'Savings Plan' WHEN " + type
                + " = 'DiscountedUsage' THEN 'Reservation' END");
        select.add(text(columns, "line_item_usage_account_id"));
        select.add(text(columns, "line_item_currency_code"));
        String unblended = decimal(columns, "line_item_unblended_cost");
        // Covered usage is billed by the plan's or reservation's fee rows; its negation rows are no usage.
        select.add("CASE WHEN " + type + " IN ('DiscountedUsage', 'SavingsPlanCoveredUsage') THEN 0 ELSE "
                + unblended + " END");
        select.add("CASE WHEN " + type + " = 'SavingsPlanCoveredUsage' THEN "
                + decimal(columns, "savings_plan_savings_plan_effective_cost") + " WHEN " + type
                + " = 'DiscountedUsage' THEN " + decimal(columns, "reservation_effective_cost") + " ELSE "
                + unblended + " END");
        select.add(decimal(columns, "pricing_public_on_demand_cost"));
        select.add(unblended);
        // An instance's running time (on demand, spot, reserved, dedicated), not its data transfer or volumes.
        String usage = "coalesce(" + text(columns, "line_item_usage_type") + ", 'BoxUsage')";
        select.add(type + " IN ('Credit', 'Refund') OR " + usage + " LIKE '%BoxUsage%' OR " + usage
                + " LIKE '%SpotUsage%' OR " + usage + " LIKE '%HeavyUsage%' OR " + usage + " LIKE '%DedicatedUsage%'");
        return select.toString();
    }

    private static String text(Set<String> columns, String name) {
        return columns.contains(name) ? "CAST(" + FocusFile.quoted(name) + " AS VARCHAR)" : "CAST(NULL AS VARCHAR)";
    }

    private static String decimal(Set<String> columns, String name) {
        return columns.contains(name) ? "TRY_CAST(" + FocusFile.quoted(name) + " AS " + DECIMAL + ")"
                : "CAST(NULL AS " + DECIMAL + ")";
    }

    /** A date-time as UTC: {@code 2024-09-18 22:00:00}, {@code 2024-09-18T22:00:00Z}, or a timestamp already. */
    private static String time(Set<String> columns, String name) {
        if (!columns.contains(name)) {
            return "CAST(NULL AS TIMESTAMP)";
        }
        String text = "CAST(" + FocusFile.quoted(name) + " AS VARCHAR)";
        return "TRY_CAST(replace(replace(regexp_replace(" + text + ", '(\\+00(:?00)?|Z)$', ''), 'T', ' '), '.000', '')"
                + " AS TIMESTAMP)";
    }

    private static Set<String> columns(Connection connection) throws SQLException {
        Set<String> columns = new HashSet<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT column_name FROM information_schema.columns"
                        + " WHERE table_name = 'bill_file'")) {
            while (rows.next()) {
                columns.add(rows.getString(1));
            }
        }
        return columns;
    }
}
