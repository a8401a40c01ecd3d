package io.gpuledger.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** A class is found by its name: two classes of the project, main or test, never share a simple one. */
class SourceNamesTest {

    @Test
    void shouldGiveEveryClassOfEveryModuleANameOfItsOwn() throws IOException {
        Map<String, List<String>> byName;
        try (Stream<Path> files = Files.walk(RepositoryFiles.root())) {
            byName = files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.endsWith("package-info.java"))
                    .map(file -> RepositoryFiles.root().relativize(file).toString().replace('\\', '/'))
                    .filter(file -> file.matches("[^/]+/src/(main|test)/java/.*"))
                    .collect(Collectors.groupingBy(file -> file.substring(file.lastIndexOf('/') + 1), TreeMap::new,
                            Collectors.toList()));
        }
        assertTrue(byName.containsKey("CostEngine.java") && byName.containsKey("Main.java"),
                "the walk found the modules' sources: " + byName.size() + " names");

        Map<String, List<String>> shared = byName.entrySet().stream().filter(entry -> entry.getValue().size() > 1)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));

        assertEquals(Map.of(), shared, "simple names that more than one class has");
    }
}
