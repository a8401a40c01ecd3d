package io.gpuledger.ingest.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.ingest.agent.progress.AgentHttp;
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

    @Test
    void shouldShipAShutdownUnitThatCallsTheAgentWhereItListensByDefault() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "agent.md"));
        String unit = Files.readString(Path.of("..", "deploy", "agent", "gpu-ledger-instance-stopping.service"));
        String url = "http://" + AgentConfig.KEYS.get("progress.host")[0] + ":"
                + AgentConfig.KEYS.get("progress.port")[0] + AgentHttp.STOPPING_PATH;

        // the token, where there is one, goes on curl's standard input
        assertThat(unit).contains("ExecStop=/bin/sh -c ").contains("| /usr/bin/curl ")
                .contains("-H @- -X POST " + url + "\"\n").contains("Environment=GPULEDGER_STOPPING_TOKEN_FILE=");
        assertThat(docs).contains("## The instance stops: `POST " + AgentHttp.STOPPING_PATH + "`")
                .contains("deploy/agent/gpu-ledger-instance-stopping.service").contains("-X POST " + url);
    }
}
