package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SBOM of each module that becomes an image (docs/security.md): written by the package phase
 * to {@code target/bom.json}, and copied into the image. The CycloneDX plugin needs the network,
 * so an offline build ({@code -o}) has none; the checks then skip, saying so. Online, a missing
 * SBOM fails.
 */
class SbomIT {

    /** The module each image is built from. */
    private static final Map<String, String> MODULES = Map.of(
            "gpu-ledger-agent", "ingest", "gpu-ledger-engine", "cli", "gpu-ledger-alerts", "alerts");

    @Test
    void shouldListKafkaClientsAtTheReactorsVersionInEachImagesSbom() throws IOException {
        String kafkaVersion = System.getProperty("kafka.version");
        assertThat(kafkaVersion).as("kafka.version, set by the deploy pom").isNotBlank();
        for (String module : MODULES.values()) {
            Path bom = sbomOf(module);
            JsonNode document = new ObjectMapper().readTree(bom.toFile());

            assertThat(document.get("bomFormat").asText()).as(module).isEqualTo("CycloneDX");
            assertThat(document.at("/metadata/component/name").asText()).as(module).isEqualTo("gpu-ledger-" + module);
            assertThat(components(document)).as(module + " components")
                    .contains("pkg:maven/org.apache.kafka/kafka-clients@" + kafkaVersion + "?type=jar");
        }
    }

    @Test
    void shouldCopyEachSbomIntoItsImage() throws IOException {
        String dir = System.getProperty("gpuledger.images.dir");
        assumeTrue(dir != null, "images are not built with -DskipImages");
        for (Map.Entry<String, String> image : MODULES.entrySet()) {
            Path bom = sbomOf(image.getValue());
            ImageTarball tarball = ImageTarball.read(Path.of(dir, image.getKey() + ".tar"));

            assertThat(tarball.files()).as(image.getKey()).containsKey("opt/gpu-ledger/sbom/bom.json");
            assertThat(tarball.files().get("opt/gpu-ledger/sbom/bom.json").size()).isEqualTo(Files.size(bom));
        }
    }

    /** The module's SBOM; a failure when an online build did not write it, a skip after an offline one. */
    private static Path sbomOf(String module) {
        Path bom = RepositoryFiles.resolve(module + "/target/bom.json");
        if (!Files.isRegularFile(bom)) {
            assumeTrue(!"offline=true".equals(System.getProperty("gpuledger.build")), bom
                    + " is missing: the CycloneDX plugin "
                    + "is skipped in an offline build (-o); build online to make the SBOMs");
            assertThat(bom).as("written by the package phase of " + module).isRegularFile();
        }
        return bom;
    }

    private static List<String> components(JsonNode document) {
        List<String> purls = new ArrayList<>();
        document.get("components").forEach(component -> purls.add(component.path("purl").asText()));
        return purls;
    }
}
