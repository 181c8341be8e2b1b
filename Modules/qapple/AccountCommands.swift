import ArgumentParser
import Domain
import Foundation
import ToolSupport

extension AuthProvider: ExpressibleByArgument {}

/// `qapple signin --token T`
struct SignIn: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signin",
    abstract: "Sign in with a provider token and keep the session for later commands.",
    discussion: """
      The local server accepts only the dev provider; its token is the account key (the same \
      token signs into the same account). The seeded community has members demo-1 ... demo-10.
      """)

  @Option(help: "The provider's token (dev: any text naming the account).")
  var token: String

  @Option(help: "apple, kakao or dev.")
  var provider: AuthProvider = .dev

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      _ = try await AccountActions.signIn(
        provider: provider, token: token, connection: connection, output: ToolOutput(output))
    }
  }
}

/// `qapple signup`: two runs, one to send the e-mail code and one to finish.
struct SignUp: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signup",
    abstract: "Create an account: send the e-mail code, then finish with --code and --nickname.",
    discussion: """
      Step 1: qapple signup --token T --email you@academy.example
              sends a 6-digit code (the local server prints it on stderr; a separate \
      qapple-server writes it to its log).
      Step 2: qapple signup --token T --email you@academy.example --code 123456 --nickname Name \
      [--cohort C]
      """)

  @Option(help: "The dev provider token the new account signs in with.")
  var token: String

  @Option(help: "The academy e-mail address the code goes to.")
  var email: String

  @Option(help: "The 6-digit code from the e-mail (step 2).")
  var code: String?

  @Option(
    help:
      "The nickname: \(Nickname.length.lowerBound)-\(Nickname.length.upperBound) letters, digits or Hangul (step 2)."
  )
  var nickname: String?

  @Option(help: "The academy cohort, e.g. \"2026 Morning\" (step 2).")
  var cohort: String?

  @Option(help: "The version of the terms the new member agrees to (step 2).")
  var termsVersion = QappleCommand.termsVersion

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func validate() throws {
    if code == nil, nickname != nil || cohort != nil {
      throw ArgumentParser.ValidationError("--nickname and --cohort go with --code (step 2).")
    }
    if code != nil, nickname == nil {
      throw ArgumentParser.ValidationError("step 2 needs --nickname as well as --code.")
    }
  }

  func run() async throws {
    let address: EmailAddress
    do {
      address = try EmailAddress(validating: email)
    } catch {
      throw ToolError(error)
    }
    try await server.withConnection(tool: .member) { connection in
      if let code {
        try await finish(connection: connection, email: address, code: code)
      } else {
        try await start(connection: connection, email: address)
      }
    }
  }

  /// Step 1: sign in to get a sign-up token, send the code, keep the token for step 2. A token
  /// that already has an account signs in, as `qapple signin` does (`--json`: its user).
  private func start(connection: ToolConnection, email: EmailAddress) async throws {
    let auth = connection.repositories.auth
    let problemBefore = await connection.backend.session.lastStorageProblem
    switch try await auth.signIn(.dev, token) {
    case .signedIn(let session):
      try await AccountActions.requireSaved(since: problemBefore, connection: connection)
      try ToolOutput(output).emit(UserOutput(session.user)) {
        "This token already has an account: signed in as \(session.user.nickname)."
      }
    case .needsSignUp(let signUpToken):
      let expiry = try await auth.requestEmailCode(signUpToken, email)
      try connection.pendingSignUps.save(
        PendingSignUp(
          providerToken: token, email: email.rawValue, signUpToken: signUpToken.rawValue,
          codeExpiresAt: expiry))
      let whereToLook =
        connection.embeddedServer != nil
        ? "printed above by the local server" : "a dev server writes it to its log"
      try ToolOutput(output).emit(EmailCodeOutput(email: email.rawValue, codeExpiresAt: expiry)) {
        """
        A 6-digit code was sent to \(email) (\(whereToLook)); it expires at \
        \(TextFormat.dateTime(expiry)).
        Finish with: qapple signup --token \(token) --email \(email) --code CODE \
        --nickname NAME\(connection.server.flagForHints)
        """
      }
    }
  }

  /// Step 2: verify the code (once), then sign up with the nickname.
  private func finish(connection: ToolConnection, email: EmailAddress, code: String) async throws {
    let auth = connection.repositories.auth
    let verificationCode: VerificationCode
    let chosen: Nickname
    do {
      verificationCode = try VerificationCode(validating: code)
      chosen = try Nickname(validating: nickname ?? "")
    } catch {
      throw ToolError(error)
    }
    let store = connection.pendingSignUps
    guard var pending = try store.load(), pending.providerToken == token,
      pending.email == email.rawValue
    else {
      throw ToolError(
        "no code was requested for \(email) with this token; run `qapple signup --token \(token) "
          + "--email \(email)\(connection.server.flagForHints)` first",
        exitCode: .usage)
    }
    let signUpToken = SignUpToken(rawValue: pending.signUpToken)
    let verification: EmailVerificationToken
    if let saved = pending.verificationToken {
      verification = EmailVerificationToken(rawValue: saved)
    } else {
      verification = try await auth.verifyEmailCode(signUpToken, email, verificationCode)
      // Kept, so a taken nickname can be retried without a new code.
      pending.verificationToken = verification.rawValue
      try store.save(pending)
    }
    let user = try await auth.signUp(
      SignUpForm(
        signUpToken: signUpToken, verificationToken: verification, nickname: chosen,
        cohort: cohort, agreedTermsVersion: termsVersion))
    try store.clear()
    try ToolOutput(output).emit(UserOutput(user)) {
      "Welcome, \(user.nickname)! Signed up (terms \(termsVersion)) and signed in on "
        + "\(connection.server)."
    }
  }
}

/// `qapple status`
struct Status: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show who is signed in on the selected server.")

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      try await AccountActions.status(connection: connection, output: ToolOutput(output))
    }
  }
}

/// `qapple profile [--nickname N] [--cohort C]`
struct Profile: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show your profile, or change your nickname or cohort.")

  @Option(
    help:
      "A new nickname: \(Nickname.length.lowerBound)-\(Nickname.length.upperBound) letters, digits or Hangul."
  )
  var nickname: String?

  @Option(help: "A new cohort.")
  var cohort: String?

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    var update = ProfileUpdate()
    do {
      update.nickname = try nickname.map { (text) throws(Domain.ValidationError) in
        try Nickname(validating: text)
      }
    } catch {
      throw ToolError(error)
    }
    update.cohort = cohort
    try await server.withConnection(tool: .member) { connection in
      let profile = connection.repositories.profile
      let changed = update.nickname != nil || update.cohort != nil
      let user = changed ? try await profile.updateProfile(update) : try await profile.fetchMe()
      try ToolOutput(output).emit(UserOutput(user)) {
        var lines = [
          "\(user.nickname)\(user.role.isAdmin ? " (admin)" : "")  id \(user.id)",
          "Cohort:   \(user.cohort ?? "-")",
          "Joined:   \(TextFormat.dateTime(user.joinedAt))",
          "Answers:  \(user.answerCount)",
        ]
        if user.isBanned { lines.append("Banned from writing.") }
        if changed { lines.insert("Profile updated.", at: 0) }
        return lines.joined(separator: "\n")
      }
    }
  }
}

/// `qapple signout`
struct SignOut: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signout", abstract: "Sign out and forget the saved session.")

  @OptionGroup var server: ServerOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      try await AccountActions.signOut(connection: connection)
    }
  }
}

/// `qapple withdraw --yes`
struct Withdraw: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Delete your account (your posts stay, shown as \"(withdrawn)\").")

  @Flag(help: "Confirm: the account cannot be restored.")
  var yes = false

  @OptionGroup var server: ServerOptions

  func validate() throws {
    guard yes else {
      throw ArgumentParser.ValidationError(
        "withdraw deletes your account for good; run it again with --yes.")
    }
  }

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      let user = try await connection.requireSignedIn()
      try await connection.repositories.auth.withdraw()
      StandardStreams.write("The account \(user.nickname) was deleted and signed out.")
    }
  }
}
