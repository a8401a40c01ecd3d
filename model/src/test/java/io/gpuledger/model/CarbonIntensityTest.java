package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CarbonIntensityTest {

    private static final Instant NOON = Instant.parse("2026-12-01T12:00:00Z");

    @TempDir
    Path folder;

    @Test
    void shouldShipEveryFigureWithItsSourceYearAndBasisAndAPueForEachProvider() {
        CarbonIntensity shipped = CarbonIntensity.shipped();

        assertThat(shipped.grids()).hasSizeGreaterThanOrEqualTo(10).allSatisfy(grid -> {
            assertThat(grid.source()).as(grid.region()).matches(".+\\([0-9]{4}\\)");
            assertThat(grid.basis()).as(grid.region()).isNotBlank();
            assertThat(grid.gramsPerKwh()).as(grid.region()).isBetween(1.0, 1200.0);
            assertThat(shipped.pue(grid.provider())).as(grid.provider()).isBetween(1.0, 2.0).isNotEqualTo(1.0);
        });
        assertThat(shipped.gramsPerGpuKwh("aws", "nowhere-1", NOON)).isNull();
    }

    @Test
    void shouldTakeADatedOverrideFromItsStartAndTheShippedFigureBefore() throws IOException {
        CarbonIntensity shipped = CarbonIntensity.shipped();
        CarbonIntensity.Grid any = shipped.grids().get(0);
        Path file = folder.resolve("live.csv");
        Files.writeString(file, "provider,region,grams_co2e_per_kwh,valid_from,basis,source\n"
                + any.provider() + "," + any.region() + ",123.5,2026-12-01T12:00:00Z,marginal,a live feed, hourly\n",
                StandardCharsets.UTF_8);

        CarbonIntensity live = shipped.withOverrides(file);

        double pue = shipped.pue(any.provider());
        assertThat(live.gramsPerGpuKwh(any.provider(), any.region(), NOON)).isCloseTo(123.5 * pue, within(1e-9));
        assertThat(live.gramsPerGpuKwh(any.provider(), any.region(), NOON.minusSeconds(1)))
                .isCloseTo(any.gramsPerKwh() * pue, within(1e-9));
        assertThat(live.grid(any.provider(), any.region(), NOON).source()).isEqualTo("a live feed, hourly");
    }

    @Test
    void shouldRefuseAnOverrideItCannotReadNamingTheLine() throws IOException {
        Path file = folder.resolve("bad.csv");
        Files.writeString(file, "provider,region,grams_co2e_per_kwh,valid_from,basis,source\naws,us-east-1,lots\n",
                StandardCharsets.UTF_8);

        assertThatThrownBy(() -> CarbonIntensity.shipped().withOverrides(file))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2");
    }
}
