package io.shardwise.testing;

import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.ImagePullPolicy;
import org.testcontainers.utility.DockerImageName;

/**
 * A Testcontainers image pull policy that never pulls: an image the engine has is used, and one it
 * lacks fails the container's start at once with a message saying how to build it, instead of a
 * pull that waits on a registry. Selected with {@code
 * TESTCONTAINERS_PULL_POLICY=io.shardwise.testing.LocalImagesOnly} (or {@code pull.policy} in
 * {@code ~/.testcontainers.properties}), as {@code scripts/docker-slice.sh} does.
 */
public final class LocalImagesOnly implements ImagePullPolicy {

  /** Testcontainers instantiates the policy by its class name. */
  public LocalImagesOnly() {}

  @Override
  public boolean shouldPull(DockerImageName imageName) {
    String image = imageName.asCanonicalNameString();
    try {
      DockerClientFactory.lazyClient().inspectImageCmd(image).exec();
      return false;
    } catch (NotFoundException e) {
      throw new IllegalStateException(
          "image "
              + image
              + " is not on the Docker engine, and pulls are off ("
              + getClass().getName()
              + "): build it on this machine with scripts/docker-images.sh (memcached:1.6 and"
              + " redis:7 from Debian's packages), or unset TESTCONTAINERS_PULL_POLICY to let"
              + " Testcontainers pull it",
          e);
    }
  }
}
