package io.gpuledger.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the checked files are: the repository root, seen from this module's directory. */
final class RepositoryFiles {

    private RepositoryFiles() {
    }

    static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isRegularFile(here.resolve("deploy/pom.xml")) ? here : here.getParent();
    }

    static Path resolve(String relative) {
        return root().resolve(relative);
    }
}
