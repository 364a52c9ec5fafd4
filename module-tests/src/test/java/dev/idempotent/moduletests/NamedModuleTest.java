package dev.idempotent.moduletests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idempotent.Idempotency;
import dev.idempotent.IdempotencyConfigurationException;
import dev.idempotent.Idempotent;
import dev.idempotent.memory.CaffeineIdempotencyStore;
import dev.idempotent.moduletests.closed.Refunds;
import dev.idempotent.spi.IdempotencyStoreProvider;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The published modules on the module path, used from a named module woven by ajc. */
class NamedModuleTest {
  @BeforeEach
  @AfterEach
  void zeroConfiguration() {
    Idempotency.reset();
  }

  @Test
  void everythingRunsAsNamedModules() {
    assertThat(Orders.class.getModule().getName()).isEqualTo("dev.idempotent.moduletests");
    assertThat(Idempotent.class.getModule().getName()).isEqualTo("dev.idempotent.core");
    assertThat(CaffeineIdempotencyStore.class.getModule().getName())
        .isEqualTo("dev.idempotent.memory");
  }

  @Test
  void onlyTheApiItsReactorFormTheSpiAndTheAspectAreExported() {
    Module core = Idempotent.class.getModule();
    assertThat(core.getDescriptor().exports())
        .filteredOn(e -> !e.isQualified())
        .extracting(e -> e.source())
        .containsExactlyInAnyOrder(
            "dev.idempotent",
            "dev.idempotent.reactor",
            "dev.idempotent.spi",
            "dev.idempotent.internal.aspect");
    assertThat(core.isExported("dev.idempotent.internal", Orders.class.getModule())).isFalse();
    assertThat(core.isExported("dev.idempotent.internal.expression")).isFalse();
    assertThat(core.isExported("dev.idempotent.internal.codec")).isFalse();
    Module memory = CaffeineIdempotencyStore.class.getModule();
    assertThat(memory.getDescriptor().exports())
        .extracting(e -> e.source())
        .containsExactly("dev.idempotent.memory");
  }

  @Test
  void eachPublishedModuleExportsItsApiPackageOnly() {
    Map<String, String> apiPackages =
        Map.of(
            "dev.idempotent.memory", "dev.idempotent.memory",
            "dev.idempotent.redisson", "dev.idempotent.redisson",
            "dev.idempotent.jdbc", "dev.idempotent.jdbc",
            "dev.idempotent.nats", "dev.idempotent.nats",
            "dev.idempotent.micrometer", "dev.idempotent.micrometer",
            "dev.idempotent.web", "dev.idempotent.web");
    apiPackages.forEach(
        (module, api) -> {
          ModuleDescriptor descriptor =
              ModuleLayer.boot().findModule(module).orElseThrow().getDescriptor();
          assertThat(descriptor.exports())
              .as(module)
              .extracting(ModuleDescriptor.Exports::source)
              .containsExactly(api);
        });
  }

  @Test
  void theContractKitExportsItsPackageOnly() {
    ModuleDescriptor tck =
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> entry.contains("store-tck"))
            .flatMap(entry -> ModuleFinder.of(Path.of(entry)).findAll().stream())
            .map(ModuleReference::descriptor)
            .findFirst()
            .orElseThrow();
    assertThat(tck.name()).isEqualTo("dev.idempotent.tck");
    assertThat(tck.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("dev.idempotent.tck");
  }

  @Test
  void everyStoreModuleProvidesItsStoreProvider() {
    assertThat(
            ServiceLoader.load(IdempotencyStoreProvider.class).stream()
                .collect(
                    Collectors.toMap(p -> p.get().name(), p -> p.type().getModule().getName())))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "memory", "dev.idempotent.memory",
                "redisson", "dev.idempotent.redisson",
                "jdbc", "dev.idempotent.jdbc",
                "nats", "dev.idempotent.nats"));
  }

  @Test
  void theStoreIsFoundThroughProvidesAndTheWovenMethodRunsOncePerKey() {
    assertThat(Idempotency.global().config().defaultStore())
        .isInstanceOf(CaffeineIdempotencyStore.class);
    Orders orders = new Orders();
    Order order = new Order(UUID.randomUUID().toString(), 1);

    String first = orders.place(order);
    String second = orders.place(order);

    assertThat(second).isEqualTo(first);
    assertThat(orders.placed()).isEqualTo(1);
    assertThat(orders.place(new Order(UUID.randomUUID().toString(), 1))).isNotEqualTo(first);
    assertThat(orders.placed()).isEqualTo(2);
  }

  @Test
  void aPackageThatIsNotOpenedToTheCoreFailsTheCallSayingWhatToOpen() {
    Refunds refunds = new Refunds();
    assertThatThrownBy(() -> refunds.refund(new Refunds.Refund(UUID.randomUUID().toString())))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("open its package to module dev.idempotent.core");
  }
}
