package io.gpuledger.finance;

import io.gpuledger.model.GpuHour;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The engine's estimates held against a provider's bill ({@link BillRows}), per instance and UTC day, and what
 * explains the difference: the bill's negotiated discounts (list less contracted cost), commitment discounts
 * (Savings Plans, reservations: contracted less effective cost of covered usage), credits, hours the bill
 * charges that the engine did not see, and hours the engine charged that the bill does not have. Bill rows match
 * the engine's hours by {@code ResourceId} (the instance id, or a resource path ending in the node's VM name, as
 * Azure and Google Cloud name VMs) and hour; a bill of daily rows matches by day, and
 * then no hour is compared.
 *
 * <p>Per offer (and billing account), the ratio of the bill's effective cost to the engine's estimate over the
 * hours both have is what the engine's price for that offer is off by: {@link OfferRate}.
 */
public final class Reconciliation {

    private static final int RATIO_SCALE = 6;

    /**
     * One instance's day.
     *
     * @param estimated  the engine's cost of the instance's GPUs that day, unmonitored time included
     * @param billed     the bill's {@code BilledCost} of the instance that day (usage and credits)
     * @param effective  the bill's {@code EffectiveCost}, commitments amortized
     * @param negotiated the bill's list cost less its contracted cost: negotiated discounts
     * @param commitment contracted less effective cost of usage a Savings Plan or reservation covered
     * @param credits    the credits' effective cost (negative)
     * @param unseen     effective cost of hours the bill charges and the engine has no figure for
     * @param unbilled   the engine's estimate of hours the bill does not charge
     */
    public record InstanceDay(String instanceId, LocalDate day, String offer, String account, String currency,
            BigDecimal estimated, BigDecimal billed, BigDecimal effective, BigDecimal negotiated,
            BigDecimal commitment, BigDecimal credits, BigDecimal unseen, BigDecimal unbilled, long hoursEstimated,
            long hoursBilled) {

        /** Effective over estimated cost; null when nothing was estimated. */
        public Double ratio() {
            return estimated.signum() == 0 ? null : effective.doubleValue() / estimated.doubleValue();
        }
    }

    /**
     * What the bill says an offer costs against what the engine estimated, over the hours (or days) both have.
     *
     * @param ratio effective over estimated cost: the factor the engine's price for the offer is off by
     */
    public record OfferRate(Offer offer, String account, BigDecimal estimated, BigDecimal effective, double ratio) {
    }

    /**
     * Every instance-day either side has, and the offers' rates.
     *
     * @param otherCurrency the instance-days the bill charges in another currency than the estimates': no amount of
     *                      one adds to the other's, so they are in no offer's rate (nor any drift or learned price)
     */
    public record Report(List<InstanceDay> days, List<OfferRate> offers, List<InstanceDay> otherCurrency) {

        /** The bill's currency for {@code rate}'s offer and account; USD when its days name none. */
        public String currencyOf(OfferRate rate) {
            return days.stream().filter(day -> rate.offer().key().equals(day.offer())
                    && Objects.equals(rate.account(), day.account())).map(InstanceDay::currency)
                    .filter(Objects::nonNull).findFirst().orElse("USD");
        }
    }

    private Reconciliation() {
    }

    /**
     * Holds {@code hours} against the rows of the bill loaded in {@code connection}'s {@link BillRows#TABLE} that
     * start in {@code [from, to)}; hours outside it are left out too.
     */
    public static Report of(Connection connection, List<GpuHour> hours, Instant from, Instant to)
            throws SQLException {
        loadEstimates(connection, hours.stream()
                .filter(hour -> !hour.windowStart().isBefore(from) && hour.windowStart().isBefore(to)).toList());
        List<InstanceDay> days = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(days(from, to))) {
            while (rows.next()) {
                days.add(new InstanceDay(rows.getString(1), rows.getDate(2).toLocalDate(), rows.getString(3),
                        rows.getString(4), rows.getString(5), rows.getBigDecimal(6), rows.getBigDecimal(7),
                        rows.getBigDecimal(8), rows.getBigDecimal(9), rows.getBigDecimal(10), rows.getBigDecimal(11),
                        rows.getBigDecimal(12), rows.getBigDecimal(13), rows.getLong(14), rows.getLong(15)));
            }
        }
        Set<String> estimated = hours.stream().map(GpuHour::currency).collect(Collectors.toSet());
        List<InstanceDay> otherCurrency = days.stream()
                .filter(day -> day.currency() != null && day.hoursEstimated() > 0
                        && !estimated.equals(Set.of(day.currency())))
                .toList();
        return new Report(days, rates(days, otherCurrency), otherCurrency);
    }

    /** Per offer and account: the bill's effective cost over the estimate, of what both sides have. */
    private static List<OfferRate> rates(List<InstanceDay> days, List<InstanceDay> otherCurrency) {
        Map<String, BigDecimal[]> sums = new LinkedHashMap<>();
        for (InstanceDay day : days) {
            if (day.offer() == null || day.hoursEstimated() == 0 || day.effective().signum() == 0
                    || otherCurrency.contains(day)) {
                continue;
            }
            BigDecimal[] sum = sums.computeIfAbsent(day.offer() + "\n" + day.account(),
                    key -> new BigDecimal[] {BigDecimal.ZERO, BigDecimal.ZERO});
            sum[0] = sum[0].add(day.estimated().subtract(day.unbilled()));
            sum[1] = sum[1].add(day.effective().subtract(day.unseen()));
        }
        List<OfferRate> rates = new ArrayList<>();
        sums.forEach((key, sum) -> {
            if (sum[0].signum() > 0) {
                String[] parts = key.split("\n", 2);
                rates.add(new OfferRate(Offer.fromKey(parts[0]), "null".equals(parts[1]) ? null : parts[1], sum[0],
                        sum[1], sum[1].divide(sum[0], RATIO_SCALE, RoundingMode.HALF_EVEN).doubleValue()));
            }
        });
        return rates;
    }

    /**
     * Writes every instance-day of the last {@link #of} over the same range to {@code file} as CSV, a header first,
     * its columns as {@link InstanceDay}'s.
     */
    public static void writeDays(Connection connection, Instant from, Instant to, java.nio.file.Path file)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("COPY (" + days(from, to) + ") TO '" + file.toAbsolutePath().toString()
                    .replace("'", "''") + "' (FORMAT csv, HEADER true)");
        }
    }

    private static String days(Instant from, Instant to) {
        return DAYS.replace("${range}", "ChargePeriodStart >= TIMESTAMP '" + timestamp(from)
                + "' AND ChargePeriodStart < TIMESTAMP '" + timestamp(to) + "'");
    }

    private static String timestamp(Instant instant) {
        return instant.atZone(ZoneOffset.UTC).toLocalDateTime().toString().replace('T', ' ');
    }

    /** Whether an offer's price can take a learned rate: not spot, whose price is the market's, hour by hour. */
    public static boolean learnable(Offer offer) {
        return offer.lifecycle() != Lifecycle.SPOT;
    }

    private static void loadEstimates(Connection connection, List<GpuHour> hours) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE OR REPLACE TABLE estimate (instance VARCHAR, host VARCHAR, hour TIMESTAMP,"
                    + " offer VARCHAR, estimated " + FocusFile.DECIMAL + ")");
        }
        try (DuckDBAppender appender = connection.unwrap(DuckDBConnection.class)
                .createAppender(DuckDBConnection.DEFAULT_SCHEMA, "estimate")) {
            for (GpuHour hour : hours) {
                appender.beginRow();
                appender.append(hour.placement().instanceId());
                appender.append(hour.placement().host());
                appender.append(hour.windowStart().atZone(ZoneOffset.UTC).toLocalDateTime());
                appender.append(hour.placement().offer().key());
                appender.append(BigDecimal.valueOf(hour.totals().cost() + hour.totals().unmonitoredCost())
                        .setScale(16, RoundingMode.HALF_EVEN));
                appender.endRow();
            }
        }
        // A bill names an instance by its id (AWS) or by a resource path that ends in the VM's name (Azure's
        // /subscriptions/.../virtualMachines/<name>, Google's .../instances/<name>), which the agent reports as
        // the node's host.
        try (Statement statement = connection.createStatement()) {
            statement.execute("""
                    CREATE OR REPLACE TABLE resource_map AS
                    SELECT DISTINCT b.ResourceId AS resource, e.instance
                    FROM (SELECT DISTINCT ResourceId FROM bill_rows WHERE ResourceId IS NOT NULL) b
                    JOIN (SELECT DISTINCT instance, host FROM estimate) e
                        ON lower(b.ResourceId) = lower(e.instance)
                        OR (b.ResourceId LIKE '%/%' AND lower(regexp_extract(b.ResourceId, '[^/]+$')) = lower(e.host))
                    """);
        }
    }

    /**
     * Hour by hour where the bill's rows are hourly, then by instance and day. Usage and credits of the instances'
     * running time only: taxes, purchases and fees are no instance's hour, nor its data transfer or volumes.
     */
    private static final String DAYS = """
            WITH est AS (
                SELECT instance, hour, any_value(offer) AS offer, sum(estimated) AS estimated
                FROM estimate GROUP BY instance, hour),
            bill AS (
                SELECT m.instance,
                    CASE WHEN ChargePeriodEnd - ChargePeriodStart <= INTERVAL 1 HOUR
                        THEN date_trunc('hour', ChargePeriodStart) END AS hour,
                    CAST(ChargePeriodStart AS DATE) AS day,
                    any_value(BillingAccountId) AS account, any_value(BillingCurrency) AS currency,
                    sum(BilledCost) AS billed, sum(EffectiveCost) AS effective,
                    sum(coalesce(ListCost, ContractedCost, 0) - coalesce(ContractedCost, ListCost, 0)) AS negotiated,
                    sum(CASE WHEN CommitmentDiscountId IS NOT NULL
                        THEN coalesce(ContractedCost, 0) - coalesce(EffectiveCost, 0) ELSE 0 END) AS commitment,
                    sum(CASE WHEN ChargeCategory = 'Credit' THEN EffectiveCost ELSE 0 END) AS credits
                FROM bill_rows JOIN resource_map m ON bill_rows.ResourceId = m.resource
                WHERE ChargeCategory IN ('Usage', 'Credit') AND InstanceHours AND ${range}
                GROUP BY ALL),
            hourly AS (
                SELECT coalesce(e.instance, b.instance) AS instance, coalesce(CAST(e.hour AS DATE), b.day) AS day,
                    e.offer, e.estimated, b.hour AS billed_hour, b.account, b.currency, b.billed, b.effective,
                    b.negotiated, b.commitment, b.credits
                FROM est e FULL OUTER JOIN (SELECT * FROM bill WHERE hour IS NOT NULL) b
                    ON e.instance = b.instance AND e.hour = b.hour),
            daily AS (
                SELECT instance, day, any_value(account) AS account, any_value(currency) AS currency,
                    sum(billed) AS billed, sum(effective) AS effective, sum(negotiated) AS negotiated,
                    sum(commitment) AS commitment, sum(credits) AS credits
                FROM bill WHERE hour IS NULL GROUP BY instance, day),
            by_hour AS (
                SELECT instance, day, any_value(offer) AS offer, any_value(account) AS account,
                    any_value(currency) AS currency, sum(estimated) AS estimated, sum(billed) AS billed,
                    sum(effective) AS effective, sum(negotiated) AS negotiated, sum(commitment) AS commitment,
                    sum(credits) AS credits,
                    sum(CASE WHEN estimated IS NULL THEN effective END) AS unseen,
                    sum(CASE WHEN billed_hour IS NULL THEN estimated END) AS unbilled,
                    count(estimated) AS hours_estimated, count(billed_hour) AS hours_billed
                FROM hourly GROUP BY instance, day),
            days AS (SELECT instance, day FROM by_hour UNION SELECT instance, day FROM daily)
            SELECT k.instance AS instance_id, k.day, h.offer, coalesce(h.account, d.account) AS account,
                coalesce(h.currency, d.currency) AS currency,
                coalesce(h.estimated, 0) AS estimated,
                coalesce(h.billed, 0) + coalesce(d.billed, 0) AS billed,
                coalesce(h.effective, 0) + coalesce(d.effective, 0) AS effective,
                coalesce(h.negotiated, 0) + coalesce(d.negotiated, 0) AS negotiated_discount,
                coalesce(h.commitment, 0) + coalesce(d.commitment, 0) AS commitment_discount,
                coalesce(h.credits, 0) + coalesce(d.credits, 0) AS credits,
                coalesce(h.unseen, 0) AS billed_hours_not_seen,
                CASE WHEN d.instance IS NULL THEN coalesce(h.unbilled, 0) ELSE 0 END AS seen_hours_not_billed,
                coalesce(h.hours_estimated, 0) AS hours_estimated, coalesce(h.hours_billed, 0) AS hours_billed
            FROM days k LEFT JOIN by_hour h ON k.instance = h.instance AND k.day = h.day
                LEFT JOIN daily d ON k.instance = d.instance AND k.day = d.day
            ORDER BY k.instance, k.day
            """;
}
