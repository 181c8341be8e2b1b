import DTO
import Foundation
import Testing

@Suite("DTODecoding errors")
struct DecodingErrorTests {
  private func decodeError<T: Decodable>(_ type: T.Type, _ data: Data) -> DTODecodingError? {
    do {
      _ = try DTODecoding.decode(type, from: data)
      return nil
    } catch {
      return error
    }
  }

  @Test("a missing field names its path")
  func missingField() throws {
    let error = decodeError(
      PageDTO<PostDTO>.self, try Fixture.data("malformed_post_page_missing_field"))
    #expect(error == .missingField(path: "items[2].created_at"))
    #expect(error?.path == "items[2].created_at")
  }

  @Test("a wrong type names its path and the expected type")
  func wrongType() throws {
    let error = decodeError(
      PageDTO<PostDTO>.self, try Fixture.data("malformed_post_page_wrong_type"))
    #expect(error == .wrongType(path: "items[1].like_count", expected: "an integer"))
  }

  @Test("null where a value is required is reported as nullValue")
  func nullValue() throws {
    let error = decodeError(
      PageDTO<PostDTO>.self, try Fixture.data("malformed_post_page_null_required"))
    #expect(error == .nullValue(path: "items[0].author_name"))
  }

  @Test("a body after a UTF-8 byte order mark decodes, as Foundation's decoder reads it")
  func byteOrderMark() throws {
    let bom = Data([0xEF, 0xBB, 0xBF])
    let user = try DTODecoding.decode(
      UserSummaryDTO.self, from: bom + Data(#" {"id":"u_1","nickname":"Mina"}"#.utf8))
    #expect(user == UserSummaryDTO(id: "u_1", nickname: "Mina"))
    #expect(decodeError(UserSummaryDTO.self, bom) == .emptyBody)
    #expect(
      decodeError(UserSummaryDTO.self, bom + Data("<html>".utf8)) == .notJSON(snippet: "<html>"))
  }

  @Test("an HTML error page is notJSON with a readable snippet")
  func htmlPage() throws {
    let error = decodeError(
      PageDTO<PostDTO>.self, try Fixture.data("malformed_html_error_page", ext: "html"))
    guard case .notJSON(let snippet) = error else {
      Issue.record("expected notJSON, got \(String(describing: error))")
      return
    }
    #expect(snippet.hasPrefix("<!DOCTYPE html> <html> <head><title>502 Bad Gateway</title>"))
    #expect(snippet.count <= DTODecoding.snippetLength + 1)
    #expect(error?.path == nil)
  }

  @Test("an empty body (or only whitespace) is emptyBody")
  func emptyBody() throws {
    #expect(decodeError(PostDTO.self, try Fixture.data("malformed_empty_body")) == .emptyBody)
    #expect(decodeError(PostDTO.self, Data(" \n\t".utf8)) == .emptyBody)
  }

  @Test("truncated JSON is reported as notJSON")
  func truncated() throws {
    let error = decodeError(PageDTO<PostDTO>.self, try Fixture.data("malformed_truncated"))
    guard case .notJSON(let snippet) = error else {
      Issue.record("expected notJSON, got \(String(describing: error))")
      return
    }
    #expect(snippet.contains("cut off"))
  }

  @Test("a date in the wrong format is corrupted at its path")
  func badDate() throws {
    let error = decodeError(
      PageDTO<PostDTO>.self, try Fixture.data("malformed_post_page_bad_date"))
    guard case .corrupted(let path, let description) = error else {
      Issue.record("expected corrupted, got \(String(describing: error))")
      return
    }
    #expect(path == "items[2].created_at")
    #expect(description.contains("2026/11/21 05:10:00"))
  }

  @Test("a bad publish_date decodes but mapping refuses it, naming the field")
  func badPublishDate() throws {
    let dto = try Fixture.decode(QuestionDTO.self, "malformed_question_bad_publish_date")
    #expect(dto.publishDate == "2026-02-30")
    #expect(throws: MappingError.self) { try dto.toDomain() }
    do {
      _ = try dto.toDomain()
    } catch {
      #expect(error.path == "publish_date")
      #expect(
        error.problem
          == .invalidFormat(value: "2026-02-30", expected: "an existing day as YYYY-MM-DD"))
    }
  }

  @Test("a top-level array of the wrong shape reports the root type")
  func wrongRoot() {
    let error = decodeError(PostDTO.self, Data("[1, 2]".utf8))
    #expect(error == .wrongType(path: "", expected: "an object"))
  }

  @Test("descriptions say what is wrong and where")
  func descriptions() {
    #expect(
      DTODecodingError.missingField(path: "items[2].created_at").description
        == "The server's JSON lacks the required field items[2].created_at.")
    #expect(DTODecodingError.emptyBody.description.contains("empty body"))
  }

  @Test("JSON types are named the way error messages say them")
  func describesTypes() {
    #expect(DTODecoding.describe(String.self) == "a string")
    #expect(DTODecoding.describe(Int32.self) == "an integer")
    #expect(DTODecoding.describe(Float.self) == "a number")
    #expect(DTODecoding.describe([String: Int].self) == "an object")
    #expect(DTODecoding.describe([Int].self) == "an array")
    #expect(DTODecoding.describe(Date.self) == "Date")
  }
}
