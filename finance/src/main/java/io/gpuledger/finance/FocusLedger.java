package io.gpuledger.finance;

import io.gpuledger.model.GpuHour;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which rows of each GPU-hour were written, so that a record of an hour already written adds only what changed:
 * nothing when it says the same (an engine that restarted before its commit sends an hour again), else a
 * {@code ChargeClass=Correction} row per job whose figures changed, with the difference. A written row is never
 * rewritten: finance may have booked it.
 */
public final class FocusLedger {

    /** The columns a correction carries as a difference; unit prices and SM activity stay as the new row says. */
    private static final List<FocusColumn> AMOUNTS = List.of(FocusColumn.BILLED_COST, FocusColumn.EFFECTIVE_COST,
            FocusColumn.LIST_COST, FocusColumn.CONTRACTED_COST, FocusColumn.PRICING_QUANTITY,
            FocusColumn.CONSUMED_QUANTITY, FocusColumn.X_IDLE_COST,
            FocusColumn.X_UNMONITORED_COST, FocusColumn.X_ENERGY_KWH, FocusColumn.X_CO2E_GRAMS);

    private final FocusRows rows;
    /** Per GPU and hour start: the rows written, by who they charge. */
    private final Map<String, Map<String, FocusRow>> written = new HashMap<>();
    private long hours;
    private long repeats;
    private long corrections;

    public FocusLedger(FocusRows rows) {
        this.rows = rows;
    }

    /** The rows to write for {@code hour}: all of them the first time, then only corrections. */
    public List<FocusRow> take(GpuHour hour) {
        String key = hour.gpuUuid() + "@" + hour.windowStart();
        Map<String, FocusRow> now = new LinkedHashMap<>();
        for (FocusRow row : rows.of(hour)) {
            now.put(chargedTo(row), row);
        }
        Map<String, FocusRow> before = written.get(key);
        if (before == null) {
            hours++;
            written.put(key, now);
            return List.copyOf(now.values());
        }
        List<FocusRow> changes = new ArrayList<>();
        for (Map.Entry<String, FocusRow> entry : now.entrySet()) {
            FocusRow correction = difference(before.get(entry.getKey()), entry.getValue());
            if (correction != null) {
                changes.add(correction);
                before.put(entry.getKey(), entry.getValue());
            }
        }
        for (Iterator<Map.Entry<String, FocusRow>> gone = before.entrySet().iterator(); gone.hasNext(); ) {
            Map.Entry<String, FocusRow> entry = gone.next();
            if (!now.containsKey(entry.getKey())) {
                changes.add(difference(entry.getValue(), null));
                gone.remove();
            }
        }
        if (changes.isEmpty()) {
            repeats++;
        }
        corrections += changes.size();
        return changes;
    }

    /** GPU-hours taken: each GPU's hour once, however often it came. */
    public long hours() {
        return hours;
    }

    /** Hours received again with the same figures, and left out. */
    public long repeats() {
        return repeats;
    }

    /** Correction rows written. */
    public long corrections() {
        return corrections;
    }

    /**
     * Who a row charges, and in what its amounts are: its currency, resource and price (lifecycle included). A row of
     * the same job and team whose hour came again in another currency, or placed on another resource or price, is
     * another row: the one written is taken back whole and the new one written whole, for a difference of two
     * currencies, or of two resources, would be no amount of either.
     */
    private static String chargedTo(FocusRow row) {
        return Objects.toString(row.text(FocusColumn.X_JOB_ID), "") + "|"
                + Objects.toString(row.text(FocusColumn.X_TEAM), "") + "|"
                + row.text(FocusColumn.BILLING_CURRENCY) + "|" + row.text(FocusColumn.RESOURCE_ID) + "|"
                + row.text(FocusColumn.SKU_PRICE_ID);
    }

    /**
     * The correction that turns {@code before} into {@code after} (either may be null: a row new or gone), or null
     * when no amount changed.
     */
    private static FocusRow difference(FocusRow before, FocusRow after) {
        FocusRow correction = (after != null ? after : before).copy();
        boolean changed = false;
        for (FocusColumn column : AMOUNTS) {
            BigDecimal was = before == null ? null : before.decimal(column);
            BigDecimal is = after == null ? null : after.decimal(column);
            if (was == null && is == null) {
                continue;
            }
            BigDecimal delta = (is == null ? BigDecimal.ZERO : is).subtract(was == null ? BigDecimal.ZERO : was);
            changed |= delta.signum() != 0;
            correction.set(column, delta);
        }
        if (!changed) {
            return null;
        }
        // FOCUS has a correction carry no commitment quantity: the commitment's own rows account for it.
        return correction.set(FocusColumn.CHARGE_CLASS, "Correction")
                .set(FocusColumn.COMMITMENT_DISCOUNT_QUANTITY, null).set(FocusColumn.COMMITMENT_DISCOUNT_UNIT, null);
    }
}
