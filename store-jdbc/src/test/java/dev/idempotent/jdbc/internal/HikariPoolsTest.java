package dev.idempotent.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.Test;

class HikariPoolsTest {
  @Test
  void mysqlAndMariaDbPoolsCountAffectedRowsUnlessTheUrlSaysOtherwise() {
    for (String url :
        new String[] {"jdbc:mariadb://db:3306/app", "jdbc:mysql://db:3306/app?user=app"}) {
      HikariConfig config = HikariPools.config(url, null, null, 4);
      assertThat(config.getDataSourceProperties().getProperty("useAffectedRows"))
          .as(url)
          .isEqualTo("true");
      assertThat(config.getDataSourceProperties().getProperty("connectTimeout"))
          .as(url)
          .isEqualTo("3000");
    }
    HikariConfig chosen =
        HikariPools.config("jdbc:mariadb://db:3306/app?useAffectedRows=false", null, null, 4);
    assertThat(chosen.getDataSourceProperties()).doesNotContainKey("useAffectedRows");
  }

  @Test
  void otherDatabasesGetNoAffectedRowsProperty() {
    assertThat(
            HikariPools.config("jdbc:postgresql://db:5432/app", null, null, 4)
                .getDataSourceProperties())
        .doesNotContainKey("useAffectedRows")
        .containsEntry("connectTimeout", "3");
    assertThat(HikariPools.config("jdbc:h2:mem:x", null, null, 4).getDataSourceProperties())
        .isEmpty();
  }
}
