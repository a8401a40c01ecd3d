package io.gpuledger.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ComparedTest {

    private static final String PROPERTY = "gpuledger.compare.test-only";

    @AfterEach
    void forget() {
        System.clearProperty(PROPERTY);
    }

    @Test
    void shouldRunOursWhenNoBenchmarkNamesAnAlternative() {
        assertEquals("ours", Compared.choice(PROPERTY, "databind"));
    }

    @Test
    void shouldRunTheAlternativeABenchmarkNamesWhateverItsCase() {
        System.setProperty(PROPERTY, " DataBind ");

        assertEquals("databind", Compared.choice(PROPERTY, "databind", "databind-plain"));
    }

    @Test
    void shouldRefuseAnAlternativeNobodyWroteNamingTheOnesThereAre() {
        System.setProperty(PROPERTY, "rocks");

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> Compared.choice(PROPERTY, "memory", "rocksdb"));

        assertTrue(refused.getMessage().contains("-Dgpuledger.compare.test-only=rocks"), refused.getMessage());
        assertTrue(refused.getMessage().contains("[memory, rocksdb]"), refused.getMessage());
    }
}
