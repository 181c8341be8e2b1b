import ChatCore
import Foundation

/// The folders of this platform where an app keeps its files, and a file name for a server.
public enum PlatformDirectories {
  /// Where an app keeps the data it creates: `~/Library/Application Support` on Apple
  /// platforms; `$XDG_DATA_HOME` when it is absolute, else `~/.local/share`, on Linux.
  public static func data(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    base(xdgVariable: "XDG_DATA_HOME", fallback: ".local/share", environment: environment)
  }

  /// Where an app keeps its settings and secrets: `~/Library/Application Support` on Apple
  /// platforms; `$XDG_CONFIG_HOME` when it is absolute, else `~/.config`, on Linux.
  public static func config(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    base(xdgVariable: "XDG_CONFIG_HOME", fallback: ".config", environment: environment)
  }

  /// A stable file name for the server at `url`: `scheme-host-port`, then the path if any, with
  /// every character but letters, digits, `-`, `_` and `.` replaced by `_`.
  public static func serverName(_ url: URL) -> String {
    let scheme = url.scheme?.lowercased() ?? "http"
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    var name = "\(scheme)-\(url.host ?? "server")-\(port)"
    let path = url.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    if !path.isEmpty { name += "-\(path)" }
    return pathComponent(name)
  }

  /// `text` with every character but ASCII letters, digits, `-`, `_` and `.` replaced by `_`:
  /// one path component on every platform.
  static func pathComponent(_ text: String) -> String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
    return String(text.map { allowed.contains($0) ? $0 : "_" })
  }

  private static func base(
    xdgVariable: String, fallback: String, environment: [String: String]
  ) -> URL {
    // `NSHomeDirectory()` exists everywhere; `homeDirectoryForCurrentUser` is macOS/Linux only.
    let home = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
    #if canImport(Darwin)
    return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? home.appendingPathComponent("Library/Application Support", isDirectory: true)
    #else
    // XDG: a relative path is invalid and must be ignored.
    if let xdg = environment[xdgVariable], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg, isDirectory: true)
    }
    return home.appendingPathComponent(fallback, isDirectory: true)
    #endif
  }
}

extension ChatStorage {
  /// Each user's store on disk, in a folder of the server's own inside this platform's app data
  /// (``PlatformDirectories/data(environment:)``): `<data>/<service>/stores/<server>/`. The
  /// default of `useLive(baseURL:)`, so an app's chat cache, unsent messages and analytics
  /// queue survive a relaunch.
  public static func platformDefault(server: URL, service: String = "qapple") -> ChatStorage {
    .directory(
      PlatformDirectories.data().appendingPathComponent(service, isDirectory: true)
        .appendingPathComponent("stores", isDirectory: true)
        .appendingPathComponent(PlatformDirectories.serverName(server), isDirectory: true))
  }
}
