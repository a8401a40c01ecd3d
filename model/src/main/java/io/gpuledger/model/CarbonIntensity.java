package io.gpuledger.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * How much CO2e a kilowatt-hour a GPU draws stands for, by where it runs: the grid's carbon intensity in the
 * cloud region (grams CO2e per kWh, each figure with its source, year and basis) times its provider's data-centre
 * PUE (the facility's energy per kWh its IT equipment draws). The shipped tables
 * ({@code carbon-intensity.csv}, {@code pue.csv} beside this class) can be overridden by a file of dated rows,
 * live grid data say: a row applies from its {@code valid_from} on.
 */
public final class CarbonIntensity {

    /**
     * One figure of a region's grid.
     *
     * @param validFrom when it applies from; {@link Instant#MIN} for a shipped yearly figure
     * @param basis     what it counts, e.g. {@code average; direct} or {@code average; lifecycle}
     */
    public record Grid(String provider, String region, double gramsPerKwh, Instant validFrom, String basis,
            String source) {
    }

    /** A provider's data-centre power usage effectiveness, with its source. */
    public record Pue(String provider, double pue, String source) {
    }

    private final Map<String, TreeMap<Instant, Grid>> grids;
    private final Map<String, Pue> pues;

    private CarbonIntensity(Map<String, TreeMap<Instant, Grid>> grids, Map<String, Pue> pues) {
        this.grids = grids;
        this.pues = pues;
    }

    /** The tables shipped with GPU Ledger. */
    public static CarbonIntensity shipped() {
        Map<String, TreeMap<Instant, Grid>> grids = new HashMap<>();
        for (String[] row : rows(resource("carbon-intensity.csv"), "carbon-intensity.csv", 6)) {
            Grid grid = new Grid(row[0], row[1], number(row[2], "carbon-intensity.csv"), Instant.MIN,
                    row[4], row[5] + " (" + row[3] + ")");
            grids.computeIfAbsent(key(grid.provider(), grid.region()), k -> new TreeMap<>()).put(Instant.MIN, grid);
        }
        Map<String, Pue> pues = new HashMap<>();
        for (String[] row : rows(resource("pue.csv"), "pue.csv", 3)) {
            pues.put(row[0], new Pue(row[0], number(row[1], "pue.csv"), row[2]));
        }
        return new CarbonIntensity(grids, pues);
    }

    /**
     * These tables with the dated rows of {@code file} over them: CSV of {@code provider,region,
     * grams_co2e_per_kwh,valid_from,basis,source}, {@code valid_from} an ISO-8601 instant; no cell but the last
     * holds a comma (write the basis as {@code average; direct}).
     *
     * @throws IllegalArgumentException naming the line that cannot be read
     */
    public CarbonIntensity withOverrides(Path file) {
        Map<String, TreeMap<Instant, Grid>> merged = new HashMap<>();
        grids.forEach((key, rows) -> merged.put(key, new TreeMap<>(rows)));
        String name = file.toString();
        try (InputStream in = Files.newInputStream(file)) {
            for (String[] row : rows(in, name, 6)) {
                Instant from;
                try {
                    from = Instant.parse(row[3]);
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException(name + ": valid_from '" + row[3] + "' is no ISO-8601 instant");
                }
                Grid grid = new Grid(row[0], row[1], number(row[2], name), from, row[4], row[5]);
                merged.computeIfAbsent(key(grid.provider(), grid.region()), k -> new TreeMap<>()).put(from, grid);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the carbon intensity file " + file, e);
        }
        return new CarbonIntensity(merged, pues);
    }

    /** The grid figure in force for {@code provider}'s {@code region} at {@code at}; null when none is known. */
    public Grid grid(String provider, String region, Instant at) {
        TreeMap<Instant, Grid> rows = grids.get(key(provider, region));
        if (rows == null) {
            return null;
        }
        Map.Entry<Instant, Grid> entry = rows.floorEntry(at);
        return entry == null ? null : entry.getValue();
    }

    /** {@code provider}'s PUE; 1 (the GPU's own draw alone) for a provider not in the table. */
    public double pue(String provider) {
        Pue pue = pues.get(provider);
        return pue == null ? 1.0 : pue.pue();
    }

    /**
     * Grams CO2e per kWh a GPU draws in {@code provider}'s {@code region} at {@code at}: the grid's intensity times
     * the provider's PUE; null when the region's grid is not known, so that no figure is made up.
     */
    public Double gramsPerGpuKwh(String provider, String region, Instant at) {
        Grid grid = grid(provider, region, at);
        return grid == null ? null : grid.gramsPerKwh() * pue(provider);
    }

    /** Every shipped or overriding grid figure in force now, per region; for documentation and tests. */
    public List<Grid> grids() {
        List<Grid> all = new ArrayList<>();
        grids.values().forEach(rows -> all.add(rows.lastEntry().getValue()));
        return all;
    }

    private static String key(String provider, String region) {
        return provider.toLowerCase(Locale.ROOT) + "|" + region.toLowerCase(Locale.ROOT);
    }

    private static InputStream resource(String name) {
        InputStream in = CarbonIntensity.class.getResourceAsStream(name);
        if (in == null) {
            throw new IllegalStateException(name + " is not on the class path");
        }
        return in;
    }

    /** The rows of a CSV of {@code columns} columns, after its header; # lines and blank ones skipped. */
    private static List<String[]> rows(InputStream in, String name, int columns) {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            boolean header = true;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                if (header) {
                    header = false;
                    continue;
                }
                String[] cells = line.split(",", columns);
                if (cells.length != columns) {
                    throw new IllegalArgumentException(name + " line " + number + ": expected " + columns
                            + " columns, found " + cells.length);
                }
                for (int i = 0; i < cells.length; i++) {
                    cells[i] = cells[i].strip();
                }
                rows.add(cells);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
        return rows;
    }

    private static double number(String text, String name) {
        try {
            double value = Double.parseDouble(text);
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new NumberFormatException(text);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + text + "' is no non-negative number");
        }
    }
}
