package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/agent.md lists every setting the agent has, with its variable: the docs cannot fall behind the code. */
class AgentDocsTest {

    @Test
    void shouldDocumentEverySettingWithItsEnvironmentVariable() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "agent.md"));

        for (String key : AgentConfig.KEYS.keySet()) {
            assertThat(docs).as("docs/agent.md row of " + key)
                    .contains("| `" + key + "` | `" + AgentConfig.envName(key) + "` |");
        }
    }
}
